// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: module parameters and the debugfs knobs tests use.
 *
 *   /sys/kernel/debug/tdsim/model            emulated model (read only)
 *   /sys/kernel/debug/tdsim/cpuN/profile     ground truth of CPU N
 *   /sys/kernel/debug/tdsim/fail_event_init  fail the next N event inits
 *   /sys/kernel/debug/tdsim/fail_add         fail the next N counter adds
 *   /sys/kernel/debug/tdsim/noise_ppm        jitter of every rate
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "tdsim.h"

static char *model = "spr";
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "CPU to emulate: skl, icl, spr, zen4, zen5, neoverse-n1, neoverse-n2, neoverse-v2");

static int counters = -1;
module_param(counters, int, 0444);
MODULE_PARM_DESC(counters, "general-purpose counters per CPU, 0-16 (default: the model's)");

u32 tdsim_noise_ppm;
module_param_named(noise_ppm, tdsim_noise_ppm, uint, 0444);
MODULE_PARM_DESC(noise_ppm, "jitter every event rate by up to this many ppm (default 0: exact)");

static const struct tdsim_model * const tdsim_models[] = {
	&tdsim_skl, &tdsim_icl, &tdsim_spr, &tdsim_zen4, &tdsim_zen5,
	&tdsim_neoverse_n1, &tdsim_neoverse_n2, &tdsim_neoverse_v2,
};

const struct tdsim_model *tdsim_model;
unsigned int tdsim_gp_counters;
atomic_t tdsim_fail_event_init = ATOMIC_INIT(0);
atomic_t tdsim_fail_add = ATOMIC_INIT(0);

static struct tdsim_cpu __percpu *tdsim_cpus;
static struct dentry *tdsim_debugfs;
/* protects the read-modify-write of a profile by concurrent writers */
static DEFINE_MUTEX(tdsim_profile_lock);

struct tdsim_cpu *tdsim_cpu(unsigned int cpu)
{
	return per_cpu_ptr(tdsim_cpus, cpu);
}

#define TDSIM_PROFILE_MAX	1024

static ssize_t tdsim_profile_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct tdsim_cpu *sc = file->private_data;
	struct tdsim_profile p;
	unsigned long flags;
	ssize_t ret;
	char *buf;
	int len;

	buf = kmalloc(TDSIM_PROFILE_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	raw_spin_lock_irqsave(&sc->lock, flags);
	p = sc->profile;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	len = tdsim_profile_print(tdsim_model, &p, buf, TDSIM_PROFILE_MAX);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static ssize_t tdsim_profile_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct tdsim_cpu *sc = file->private_data;
	struct tdsim_profile p;
	unsigned long flags;
	char *buf;
	int ret;

	/* one write holds the whole change, so a bad one changes nothing */
	if (*ppos || count >= TDSIM_PROFILE_MAX) {
		pr_info("profile: write all of it at once, under %d bytes\n",
			TDSIM_PROFILE_MAX);
		return -EINVAL;
	}
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	mutex_lock(&tdsim_profile_lock);
	raw_spin_lock_irqsave(&sc->lock, flags);
	p = sc->profile;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	ret = tdsim_profile_parse(tdsim_model, buf, &p);
	if (!ret)
		tdsim_cpu_set_profile(sc, &p);
	mutex_unlock(&tdsim_profile_lock);
	kfree(buf);
	return ret ? ret : count;
}

static const struct file_operations tdsim_profile_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tdsim_profile_read,
	.write	= tdsim_profile_write,
	.llseek	= default_llseek,
};

static ssize_t tdsim_model_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[64];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s %u\n", tdsim_model->name,
			tdsim_gp_counters);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations tdsim_model_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tdsim_model_read,
	.llseek	= default_llseek,
};

static void tdsim_debugfs_init(void)
{
	unsigned int cpu;
	char name[16];

	tdsim_debugfs = debugfs_create_dir("tdsim", NULL);
	debugfs_create_file("model", 0444, tdsim_debugfs, NULL,
			    &tdsim_model_fops);
	debugfs_create_atomic_t("fail_event_init", 0600, tdsim_debugfs,
				&tdsim_fail_event_init);
	debugfs_create_atomic_t("fail_add", 0600, tdsim_debugfs,
				&tdsim_fail_add);
	debugfs_create_u32("noise_ppm", 0600, tdsim_debugfs, &tdsim_noise_ppm);
	for_each_possible_cpu(cpu) {
		struct dentry *dir;

		snprintf(name, sizeof(name), "cpu%u", cpu);
		dir = debugfs_create_dir(name, tdsim_debugfs);
		debugfs_create_file("profile", 0600, dir, tdsim_cpu(cpu),
				    &tdsim_profile_fops);
	}
}

static int __init tdsim_init(void)
{
	struct tdsim_profile p;
	unsigned int cpu, i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tdsim_models); i++)
		if (!strcmp(model, tdsim_models[i]->name))
			tdsim_model = tdsim_models[i];
	if (!tdsim_model) {
		pr_err("model=%s: unknown model (known: skl icl spr zen4 zen5 neoverse-n1 neoverse-n2 neoverse-v2)\n",
		       model);
		return -EINVAL;
	}
	if (counters > TDSIM_MAX_GP) {
		pr_err("counters=%d: must be 0..%d\n", counters, TDSIM_MAX_GP);
		return -EINVAL;
	}
	tdsim_gp_counters = counters < 0 ? tdsim_model->gp_counters : counters;
	if (tdsim_noise_ppm > TDSIM_PPM) {
		pr_err("noise_ppm=%u: must be at most %u\n", tdsim_noise_ppm,
		       TDSIM_PPM);
		return -EINVAL;
	}

	tdsim_cpus = alloc_percpu(struct tdsim_cpu);
	if (!tdsim_cpus)
		return -ENOMEM;
	tdsim_profile_default(tdsim_model, &p);
	for_each_possible_cpu(cpu) {
		struct tdsim_cpu *sc = tdsim_cpu(cpu);

		raw_spin_lock_init(&sc->lock);
		sc->cpu = cpu;
		tdsim_cpu_set_profile(sc, &p);
	}

	tdsim_debugfs_init();
	ret = tdsim_pmu_register();
	if (ret) {
		pr_err("perf_pmu_register failed: %d\n", ret);
		goto err_debugfs;
	}
	pr_info("emulating %s: width %u, %u general-purpose and %u fixed counters\n",
		tdsim_model->name, tdsim_model->width, tdsim_gp_counters,
		tdsim_model->fixed_counters);
	return 0;

err_debugfs:
	debugfs_remove_recursive(tdsim_debugfs);
	free_percpu(tdsim_cpus);
	return ret;
}

static void __exit tdsim_exit(void)
{
	tdsim_pmu_unregister();
	debugfs_remove_recursive(tdsim_debugfs);
	free_percpu(tdsim_cpus);
}

module_init(tdsim_init);
module_exit(tdsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tdsim: a simulated PMU for testing topdown");
