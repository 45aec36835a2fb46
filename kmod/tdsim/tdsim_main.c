// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: module parameters and the debugfs knobs tests use.
 *
 *   /sys/kernel/debug/tdsim/model            emulated model and counters
 *                                            (and atom_cpus='s, CPUs)
 *   /sys/kernel/debug/tdsim/cpuN/profile     steady ground truth of CPU N;
 *                                            a write ends a running schedule
 *   /sys/kernel/debug/tdsim/cpuN/schedule    phases "ms=N key=value ...;..."
 *                                            repeating from the write, or off
 *   /sys/kernel/debug/tdsim/cpuN/truth       cumulative truth (cycles, slots,
 *                                            each node) now, or at the
 *                                            CLOCK_MONOTONIC ns written to it
 *   /sys/kernel/debug/tdsim/fail_event_init  fail the next N event inits
 *   /sys/kernel/debug/tdsim/fail_add         fail the next N counter adds
 *   /sys/kernel/debug/tdsim/noise_ppm        jitter of every rate (steady
 *                                            profiles only, never the truth)
 *   /sys/kernel/debug/tdsim/stall_every      every Nth read of a counter
 *   /sys/kernel/debug/tdsim/stall_us         first waits this long (a vCPU
 *                                            descheduled between two reads)
 *   /sys/kernel/debug/tdsim/stall_crawl_us   and every read for this long
 *                                            after it too (a vCPU the host
 *                                            keeps descheduling)
 *   /sys/kernel/debug/tdsim/stalls           how many reads waited so far
 *   /sys/kernel/debug/tdsim/mediated_vms     "create" or "destroy" a VM with
 *                                            a mediated PMU (tdsim_mediated.c)
 *
 * fixed=, counters= and watchdog= make the PMU a KVM guest's or
 * one whose counter the NMI watchdog holds (tdsim_watchdog.c).
 *
 * An Arm model's PMU also has caps/slots, as arm_pmuv3's: the slots per
 * cycle of a PMUv3p4 or later (PMMIR_EL1.SLOTS), 0 before (pmmir=0).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "td_compat.h"
#include "tdsim.h"

/* the simulator; the settings' parameters fill it in at load */
static struct tdsim tdsim_sim = {
	.anythread = true,
	.freeze = true,
	.mediated = true,
};

static char *param_model = "spr";
module_param_named(model, param_model, charp, 0444);
MODULE_PARM_DESC(model, "CPU to emulate: skl, icl, spr, gnr, lioncove, zen4, zen5, zen6, neoverse-n1, neoverse-n2, neoverse-n2-r0p2, neoverse-v1, neoverse-v2, neoverse-n3, neoverse-v3, ampereone, ampereonex, gracemont, crestmont, skymont");

static int param_slots = -1;
module_param_named(slots, param_slots, int, 0444);
MODULE_PARM_DESC(slots, "pipeline slots per cycle, 1-255 (default: the model's): the events count for this width");

static int param_pmmir = -1;
module_param_named(pmmir, param_pmmir, int, 0444);
MODULE_PARM_DESC(pmmir, "Arm: 1: a PMUv3p4 or later, whose caps/slots says the slots per cycle; 0: an older one, caps/slots 0 (default: the model's)");

module_param_named(raw, tdsim_sim.raw, bool, 0444);
MODULE_PARM_DESC(raw, "register tdsim as PERF_TYPE_RAW's PMU, as x86's cpu (cpu_core on a hybrid part) is, where no PMU is (a VM without one)");

static char *param_atom_cpus;
module_param_named(atom_cpus, param_atom_cpus, charp, 0444);
MODULE_PARM_DESC(atom_cpus, "CPU list of a second PMU, tdsim_atom, as a hybrid part's E-cores have cpu_atom (with atom_model=)");

static char *param_atom_model;
module_param_named(atom_model, param_atom_model, charp, 0444);
MODULE_PARM_DESC(atom_model, "the model of atom_cpus=: gracemont, crestmont, skymont");

static int param_counters = -1;
module_param_named(counters, param_counters, int, 0444);
MODULE_PARM_DESC(counters, "general-purpose counters per CPU, 0-16 (default: the model's)");

static int param_fixed = -1;
module_param_named(fixed, param_fixed, int, 0444);
MODULE_PARM_DESC(fixed, "fixed counters per CPU, 0 to the model's (default: the model's; a KVM guest has 3)");

static bool param_watchdog;
module_param_named(watchdog, param_watchdog, bool, 0444);
MODULE_PARM_DESC(watchdog, "hold a pinned cycles event on each CPU where the NMI watchdog would (Intel: fixed counter 1; AMD: a general-purpose counter; Arm: the cycle counter)");

module_param_named(anythread, tdsim_sim.anythread, bool, 0444);
MODULE_PARM_DESC(anythread, "accept events with the AnyThread bit (default 1; 0: -EINVAL, as a KVM guest's PMU of version 2)");

/*
 * freeze=0: an ideal PMU, whose counters run on while perf holds it
 * disabled, for tests that hold windows against the truth's wall-clock
 * time: a frozen counter misses the share of time perf spends disabled.
 */
module_param_named(freeze, tdsim_sim.freeze, bool, 0444);
MODULE_PARM_DESC(freeze, "counters stand still while perf holds the PMU disabled, as hardware's do (default 1)");

module_param_named(mediated, tdsim_sim.mediated, bool, 0444);
MODULE_PARM_DESC(mediated, "the PMU is one a mediated vPMU can take, as Intel's and AMD's since 7.0: events that count guest time and mediated VMs (debugfs mediated_vms) exclude each other (default 1)");

/* the debugfs knob's value too, as before */
module_param_named(noise_ppm, tdsim_sim.noise_ppm, uint, 0444);
MODULE_PARM_DESC(noise_ppm, "jitter every event rate by up to this many ppm (default 0: exact)");

static const struct tdsim_model * const tdsim_models[] = {
	&tdsim_skl, &tdsim_icl, &tdsim_spr, &tdsim_zen4, &tdsim_zen5,
	&tdsim_neoverse_n1, &tdsim_neoverse_n2, &tdsim_neoverse_n2_r0,
	&tdsim_neoverse_v1, &tdsim_neoverse_v2, &tdsim_ampereone,
	&tdsim_ampereonex, &tdsim_gracemont, &tdsim_crestmont, &tdsim_gnr,
	&tdsim_lioncove, &tdsim_skymont, &tdsim_zen6, &tdsim_neoverse_n3,
	&tdsim_neoverse_v3,
};

/* every model's name, space separated (for error messages) */
static void tdsim_model_names(char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(tdsim_models) && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? " " : "",
			       tdsim_models[i]->name);
}

/* the model named @name, or NULL */
static const struct tdsim_model *tdsim_model_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tdsim_models); i++)
		if (!strcmp(name, tdsim_models[i]->name))
			return tdsim_models[i];
	return NULL;
}

static struct dentry *tdsim_debugfs;
static enum cpuhp_state tdsim_hp_state;
/* protects the read-modify-write of a profile or schedule by concurrent writers */
static DEFINE_MUTEX(tdsim_profile_lock);

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
	len = tdsim_profile_print(sc->model, &p, '\n', buf, TDSIM_PROFILE_MAX);
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
	ret = tdsim_profile_parse(sc->model, buf, &p, "profile");
	/* a new steady profile ends a running schedule */
	if (!ret)
		ret = tdsim_cpu_set_profile(sc, &p);
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

#define TDSIM_SCHEDULE_MAX	8192

static ssize_t tdsim_schedule_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct tdsim_cpu *sc = file->private_data;
	struct tdsim_phases *ph;
	unsigned int k, nr;
	int len = 0;
	ssize_t ret;
	char *buf;

	buf = kmalloc(TDSIM_SCHEDULE_MAX, GFP_KERNEL);
	ph = kzalloc_obj(*ph, GFP_KERNEL);
	if (!buf || !ph) {
		ret = -ENOMEM;
		goto out;
	}
	tdsim_cpu_phases(sc, ph);
	nr = ph->steady ? 0 : ph->nr;
	if (!nr)
		len = scnprintf(buf, TDSIM_SCHEDULE_MAX, "off\n");
	for (k = 0; k < nr; k++) {
		len += scnprintf(buf + len, TDSIM_SCHEDULE_MAX - len, "ms=%u ",
				 ph->ms[k]);
		len += tdsim_profile_print(sc->model, &ph->p[k], ' ', buf + len,
					   TDSIM_SCHEDULE_MAX - len);
		buf[len - 1] = '\n';	/* the last item's separator */
	}
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
out:
	kfree(ph);
	kfree(buf);
	return ret;
}

/* Parse and start schedule @buf on @sc, or end the one running ("off"). */
static int tdsim_schedule_set(struct tdsim_cpu *sc, const char *buf,
			      struct tdsim_phases *ph)
{
	struct tdsim_profile steady;
	unsigned long flags;
	bool running;
	int ret;

	raw_spin_lock_irqsave(&sc->lock, flags);
	steady = sc->profile;
	running = sc->plan->period_ns != 0;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	ret = tdsim_schedule_parse(sc->model, buf, &steady, ph->p, ph->ms);
	if (ret > 0)
		return tdsim_cpu_set_schedule(sc, ph->p, ph->ms, ret);
	if (!ret && running)	/* off: back to the steady profile */
		return tdsim_cpu_set_profile(sc, &steady);
	return ret;
}

static ssize_t tdsim_schedule_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct tdsim_cpu *sc = file->private_data;
	struct tdsim_phases *ph;
	char *buf;
	int ret;

	/* one write holds the whole schedule, so a bad one changes nothing */
	if (*ppos || count >= TDSIM_SCHEDULE_MAX) {
		pr_info("schedule: write all of it at once, under %d bytes\n",
			TDSIM_SCHEDULE_MAX);
		return -EINVAL;
	}
	ph = kzalloc_obj(*ph, GFP_KERNEL);
	if (!ph)
		return -ENOMEM;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf)) {
		kfree(ph);
		return PTR_ERR(buf);
	}
	mutex_lock(&tdsim_profile_lock);
	ret = tdsim_schedule_set(sc, buf, ph);
	mutex_unlock(&tdsim_profile_lock);
	kfree(buf);
	kfree(ph);
	return ret ? ret : count;
}

static const struct file_operations tdsim_schedule_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tdsim_schedule_read,
	.write	= tdsim_schedule_write,
	.llseek	= default_llseek,
};

#define TDSIM_TRUTH_MAX		1024

/* An open cpuN/truth: the text of the last read from offset 0. */
struct tdsim_truth_file {
	struct tdsim_cpu *sc;
	int len;
	char buf[TDSIM_TRUTH_MAX];
	u64 truth[TDSIM_NR_TRUTH];
};

static int tdsim_truth_open(struct inode *inode, struct file *file)
{
	struct tdsim_truth_file *tf;

	tf = kzalloc_obj(*tf, GFP_KERNEL);
	if (!tf)
		return -ENOMEM;
	tf->sc = inode->i_private;
	file->private_data = tf;
	return 0;
}

static int tdsim_truth_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/*
 * A read from offset 0 takes the truth; reads further on return the rest
 * of the same text, so a reader that reads a line at a time and seeks back
 * (as shells do) gets one moment's values.
 */
static ssize_t tdsim_truth_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct tdsim_truth_file *tf = file->private_data;
	struct tdsim_cpu *sc = tf->sc;
	unsigned int t;
	int ret, len;
	u64 at;

	if (!*ppos) {
		tf->len = 0;
		ret = tdsim_cpu_truth(sc, READ_ONCE(sc->truth_at), &at,
				      tf->truth);
		if (ret)
			return ret;
		len = scnprintf(tf->buf, TDSIM_TRUTH_MAX, "at_ns %llu\n", at);
		for (t = 0; t < TDSIM_NR_TRUTH; t++)
			if (tdsim_truth_valid(sc->model, t))
				len += scnprintf(tf->buf + len,
						 TDSIM_TRUTH_MAX - len,
						 "%s %llu\n",
						 tdsim_truth_name(t), tf->truth[t]);
		tf->len = len;
	}
	return simple_read_from_buffer(ubuf, count, ppos, tf->buf, tf->len);
}

#define TDSIM_AT_MAX		32	/* a written moment's text, with its NUL */

/* The moment later reads show: CLOCK_MONOTONIC ns, or "now" (or 0). */
static ssize_t tdsim_truth_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct tdsim_truth_file *tf = file->private_data;
	int ret = -EINVAL;
	char *buf, *text;
	u64 at = 0;

	if (count < TDSIM_AT_MAX) {
		buf = memdup_user_nul(ubuf, count);
		if (IS_ERR(buf))
			return PTR_ERR(buf);
		text = strim(buf);
		if (!strcmp(text, "now") || !kstrtou64(text, 10, &at)) {
			WRITE_ONCE(tf->sc->truth_at, at);
			ret = count;
		}
		kfree(buf);
	}
	if (ret < 0)
		pr_info("cpu%u truth: write a time in ns (CLOCK_MONOTONIC), 0 or now\n",
			tf->sc->cpu);
	return ret;
}

static const struct file_operations tdsim_truth_fops = {
	.owner		= THIS_MODULE,
	.open		= tdsim_truth_open,
	.read		= tdsim_truth_read,
	.write		= tdsim_truth_write,
	.llseek		= default_llseek,
	.release	= tdsim_truth_release,
};

#define TDSIM_MODEL_MAX		128

static ssize_t tdsim_model_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct tdsim *sim = file->private_data;
	ssize_t ret;
	char *buf;
	int len;

	buf = kmalloc(TDSIM_MODEL_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = scnprintf(buf, TDSIM_MODEL_MAX, "%s %u\n", sim->model->name,
			sim->gp_counters);
	if (sim->hybrid)	/* the second PMU's: model, counters, CPUs */
		len += scnprintf(buf + len, TDSIM_MODEL_MAX - len,
				 "%s %u %*pbl\n", sim->atom_model->name,
				 sim->atom_model->gp_counters,
				 cpumask_pr_args(&sim->atom_cpus));
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static const struct file_operations tdsim_model_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= tdsim_model_read,
	.llseek	= default_llseek,
};

static struct cpumask tdsim_dir_cpus;	/* the CPUs with a directory */

/*
 * @cpu's directory and files, once: at load for a present CPU, or when a
 * CPU added later first comes online.  Not every possible CPU's: each
 * debugfs file's removal sums a per-CPU count over all of them.
 */
static void tdsim_debugfs_cpu(struct tdsim *sim, unsigned int cpu)
{
	struct tdsim_cpu *sc = tdsim_cpu(sim, cpu);
	struct dentry *dir;
	char name[16];

	if (cpumask_test_and_set_cpu(cpu, &tdsim_dir_cpus))
		return;
	snprintf(name, sizeof(name), "cpu%u", cpu);
	dir = debugfs_create_dir(name, tdsim_debugfs);
	debugfs_create_file("profile", 0600, dir, sc, &tdsim_profile_fops);
	debugfs_create_file("schedule", 0600, dir, sc, &tdsim_schedule_fops);
	debugfs_create_file("truth", 0600, dir, sc, &tdsim_truth_fops);
}

static void tdsim_debugfs_init(struct tdsim *sim)
{
	struct dentry *d = debugfs_create_dir("tdsim", NULL);
	unsigned int cpu;

	tdsim_debugfs = d;
	debugfs_create_file("model", 0444, d, sim, &tdsim_model_fops);
	debugfs_create_atomic_t("fail_event_init", 0600, d,
				&sim->fail_event_init);
	debugfs_create_atomic_t("fail_add", 0600, d, &sim->fail_add);
	debugfs_create_u32("noise_ppm", 0600, d, &sim->noise_ppm);
	debugfs_create_u32("stall_every", 0600, d, &sim->stall_every);
	debugfs_create_u32("stall_us", 0600, d, &sim->stall_us);
	debugfs_create_u32("stall_crawl_us", 0600, d, &sim->stall_crawl_us);
	debugfs_create_atomic_t("stalls", 0400, d, &sim->stalls);
	tdsim_mediated_debugfs(d, sim);
	for_each_present_cpu(cpu)
		tdsim_debugfs_cpu(sim, cpu);
}

/* CPU hotplug: a CPU coming online, its files if it is new, its siblings */
static int tdsim_hp_online(unsigned int cpu)
{
	tdsim_debugfs_cpu(&tdsim_sim, cpu);
	return tdsim_cpu_hp_online(&tdsim_sim, cpu);
}

static int tdsim_hp_offline(unsigned int cpu)
{
	return tdsim_cpu_hp_offline(&tdsim_sim, cpu);
}

/*
 * atom_cpus= and atom_model=: a second PMU for those CPUs, of the same
 * vendor (x86 hybrid: cpu_core and cpu_atom).  counters= and fixed= are
 * the first PMU's; the second has its model's.
 */
static int __init tdsim_atom_setup(struct tdsim *sim)
{
	if (!param_atom_cpus && !param_atom_model)
		return 0;
	if (!param_atom_cpus || !param_atom_model) {
		pr_err("atom_cpus= and atom_model= go together\n");
		return -EINVAL;
	}
	sim->atom_model = tdsim_model_find(param_atom_model);
	if (!sim->atom_model || sim->atom_model->vendor != sim->model->vendor) {
		pr_err("atom_model=%s: not a model of %s's vendor\n",
		       param_atom_model, sim->model->name);
		return -EINVAL;
	}
	if (cpulist_parse(param_atom_cpus, &sim->atom_cpus) ||
	    cpumask_empty(&sim->atom_cpus) ||
	    !cpumask_subset(&sim->atom_cpus, cpu_possible_mask)) {
		pr_err("atom_cpus=%s: not a list of possible CPUs\n",
		       param_atom_cpus);
		return -EINVAL;
	}
	sim->hybrid = true;
	return 0;
}

#define TDSIM_NAMES_MAX		192

/* model=, slots= and pmmir=: the model emulated */
static int __init tdsim_model_setup(struct tdsim *sim)
{
	const struct tdsim_model *m = tdsim_model_find(param_model);
	char *names;

	if (!m) {
		names = kmalloc(TDSIM_NAMES_MAX, GFP_KERNEL);
		if (names)
			tdsim_model_names(names, TDSIM_NAMES_MAX);
		pr_err("model=%s: unknown model (known: %s)\n", param_model,
		       names ? names : "?");
		kfree(names);
		return -EINVAL;
	}
	sim->own = *m;
	if (param_slots == 0 || param_slots > 255) {
		pr_err("slots=%d: must be 1..255 (PMMIR_EL1.SLOTS is 8 bits)\n",
		       param_slots);
		return -EINVAL;
	}
	if (param_slots > 0)
		sim->own.width = param_slots;
	if (param_pmmir > 1) {
		pr_err("pmmir=%d: must be 0 or 1\n", param_pmmir);
		return -EINVAL;
	}
	if (param_pmmir >= 0)
		sim->own.pmmir = param_pmmir;
	sim->model = &sim->own;
	return 0;
}

/* the settings from the module parameters, checked */
static int __init tdsim_settings_init(struct tdsim *sim)
{
	const struct tdsim_model *m;
	int ret;

	ret = tdsim_model_setup(sim);
	if (ret)
		return ret;
	m = sim->model;
	if (param_counters > TDSIM_MAX_GP) {
		pr_err("counters=%d: must be 0..%d\n", param_counters,
		       TDSIM_MAX_GP);
		return -EINVAL;
	}
	sim->gp_counters = param_counters < 0 ? m->gp_counters : param_counters;
	if (param_fixed > (int)m->fixed_counters) {
		pr_err("fixed=%d: must be 0..%u (%s's)\n", param_fixed,
		       m->fixed_counters, m->name);
		return -EINVAL;
	}
	sim->fixed_counters = param_fixed < 0 ? m->fixed_counters : param_fixed;
	if (sim->noise_ppm > TDSIM_PPM) {
		pr_err("noise_ppm=%u: must be at most %u\n", sim->noise_ppm,
		       TDSIM_PPM);
		return -EINVAL;
	}
	return tdsim_atom_setup(sim);
}

static void tdsim_cpus_free(struct tdsim *sim)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		tdsim_cpu_release(tdsim_cpu(sim, cpu));
	free_percpu(sim->cpus);
}

/* every possible CPU's state, playing its model's default profile */
static int __init tdsim_cpus_init(struct tdsim *sim)
{
	struct tdsim_profile p;
	unsigned int cpu;
	int ret;

	sim->cpus = alloc_percpu(struct tdsim_cpu);
	if (!sim->cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tdsim_cpu *sc = tdsim_cpu(sim, cpu);

		raw_spin_lock_init(&sc->lock);
		sc->cpu = cpu;
		sc->atom = cpumask_test_cpu(cpu, &sim->atom_cpus);
		sc->model = sc->atom ? sim->atom_model : sim->model;
		sc->gp_counters = sc->atom ? sc->model->gp_counters :
			sim->gp_counters;
		sc->fixed_counters = sc->atom ? sc->model->fixed_counters :
			sim->fixed_counters;
		tdsim_profile_default(sc->model, &p);
		ret = tdsim_cpu_set_profile(sc, &p);
		if (ret) {
			tdsim_cpus_free(sim);
			return ret;
		}
	}
	return 0;
}

static void __init tdsim_announce(const struct tdsim *sim)
{
	const struct tdsim_model *m = sim->model, *a = sim->atom_model;

	pr_info("emulating %s: width %u%s, %u general-purpose and %u fixed counters%s%s\n",
		m->name, m->width,
		m->vendor != TDSIM_ARM ? "" :
		m->pmmir ? " (caps/slots)" : " (caps/slots 0)",
		sim->gp_counters, sim->fixed_counters,
		param_watchdog ? ", one held as by the NMI watchdog" : "",
		sim->anythread ? "" : ", no AnyThread");
	if (sim->hybrid)
		pr_info("and %s on CPUs %*pbl (PMU tdsim_atom): width %u, %u general-purpose and %u fixed counters\n",
			a->name, cpumask_pr_args(&sim->atom_cpus), a->width,
			a->gp_counters, a->fixed_counters);
}

/* the PMUs, and the watchdog's counters on them (watchdog=1) */
static int __init tdsim_pmus_init(struct tdsim *sim)
{
	int ret = tdsim_pmu_register(sim);

	if (ret) {
		pr_err("perf_pmu_register failed: %d\n", ret);
		return ret;
	}
	if (!param_watchdog)
		return 0;
	ret = tdsim_watchdog_start(sim);
	if (ret) {
		pr_err("watchdog=1: cpuhp_setup_state failed: %d\n", ret);
		tdsim_pmu_unregister(sim);
	}
	return ret;
}

static int __init tdsim_init(void)
{
	struct tdsim *sim = &tdsim_sim;
	int ret;

	ret = tdsim_settings_init(sim);
	if (ret)
		return ret;
	ret = tdsim_cpus_init(sim);
	if (ret)
		return ret;
	tdsim_debugfs_init(sim);
	/* a sibling's hotplug changes what AnyThread events count; a new CPU gets its files */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tdsim:online",
				tdsim_hp_online, tdsim_hp_offline);
	if (ret < 0) {
		pr_err("cpuhp_setup_state: %d\n", ret);
		goto err_debugfs;
	}
	tdsim_hp_state = ret;
	ret = tdsim_pmus_init(sim);
	if (ret)
		goto err_hp;
	tdsim_announce(sim);
	return 0;

err_hp:
	cpuhp_remove_state_nocalls(tdsim_hp_state);
err_debugfs:
	debugfs_remove_recursive(tdsim_debugfs);
	tdsim_cpus_free(sim);
	return ret;
}

static void __exit tdsim_exit(void)
{
	tdsim_watchdog_stop();
	tdsim_pmu_unregister(&tdsim_sim);
	/* no CPU's files made after the removal */
	cpuhp_remove_state_nocalls(tdsim_hp_state);
	debugfs_remove_recursive(tdsim_debugfs);
	tdsim_cpus_free(&tdsim_sim);
}

module_init(tdsim_init);
module_exit(tdsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tdsim: a simulated PMU for testing topdown");
