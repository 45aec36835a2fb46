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

static char *model = "spr";
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "CPU to emulate: skl, icl, spr, gnr, lioncove, zen4, zen5, zen6, neoverse-n1, neoverse-n2, neoverse-n2-r0p2, neoverse-v1, neoverse-v2, neoverse-n3, neoverse-v3, ampereone, ampereonex, gracemont, crestmont, skymont");

static int slots = -1;
module_param(slots, int, 0444);
MODULE_PARM_DESC(slots, "pipeline slots per cycle, 1-255 (default: the model's): the events count for this width");

static int pmmir = -1;
module_param(pmmir, int, 0444);
MODULE_PARM_DESC(pmmir, "Arm: 1: a PMUv3p4 or later, whose caps/slots says the slots per cycle; 0: an older one, caps/slots 0 (default: the model's)");

bool tdsim_raw;
module_param_named(raw, tdsim_raw, bool, 0444);
MODULE_PARM_DESC(raw, "register tdsim as PERF_TYPE_RAW's PMU, as x86's cpu (cpu_core on a hybrid part) is, where no PMU is (a VM without one)");

static char *atom_cpus;
module_param(atom_cpus, charp, 0444);
MODULE_PARM_DESC(atom_cpus, "CPU list of a second PMU, tdsim_atom, as a hybrid part's E-cores have cpu_atom (with atom_model=)");

static char *atom_model;
module_param(atom_model, charp, 0444);
MODULE_PARM_DESC(atom_model, "the model of atom_cpus=: gracemont, crestmont, skymont");

static int counters = -1;
module_param(counters, int, 0444);
MODULE_PARM_DESC(counters, "general-purpose counters per CPU, 0-16 (default: the model's)");

static int fixed = -1;
module_param(fixed, int, 0444);
MODULE_PARM_DESC(fixed, "fixed counters per CPU, 0 to the model's (default: the model's; a KVM guest has 3)");

static bool watchdog;
module_param(watchdog, bool, 0444);
MODULE_PARM_DESC(watchdog, "hold a pinned cycles event on each CPU where the NMI watchdog would (Intel: fixed counter 1; AMD: a general-purpose counter; Arm: the cycle counter)");

bool tdsim_anythread = true;
module_param_named(anythread, tdsim_anythread, bool, 0444);
MODULE_PARM_DESC(anythread, "accept events with the AnyThread bit (default 1; 0: -EINVAL, as a KVM guest's PMU of version 2)");

/*
 * freeze=0 is an ideal PMU, whose counters run on while perf holds it
 * disabled: for the tests of the module's windows against the truth's
 * wall-clock time.  Under QEMU's TCG perf's disabled sections take a few
 * percent of the time (1.4-3.5 % of cycles at Level 3, measured): the
 * emulation's cost, not a PMU's.  A frozen counter misses that share of a
 * schedule's phases.
 */
bool tdsim_freeze = true;
module_param_named(freeze, tdsim_freeze, bool, 0444);
MODULE_PARM_DESC(freeze, "counters stand still while perf holds the PMU disabled, as hardware's do (default 1)");

bool tdsim_mediated = true;
module_param_named(mediated, tdsim_mediated, bool, 0444);
MODULE_PARM_DESC(mediated, "the PMU is one a mediated vPMU can take, as Intel's and AMD's since 7.0: events that count guest time and mediated VMs (debugfs mediated_vms) exclude each other (default 1)");

u32 tdsim_noise_ppm;
module_param_named(noise_ppm, tdsim_noise_ppm, uint, 0444);
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

/* the model emulated, with slots= and pmmir= applied */
static struct tdsim_model tdsim_own;

const struct tdsim_model *tdsim_model;
bool tdsim_hybrid;
static const struct tdsim_model *tdsim_atom_model;
static struct cpumask tdsim_atom_cpus;
unsigned int tdsim_gp_counters;
unsigned int tdsim_fixed_counters;
atomic_t tdsim_fail_event_init = ATOMIC_INIT(0);
atomic_t tdsim_fail_add = ATOMIC_INIT(0);
u32 tdsim_stall_every, tdsim_stall_us, tdsim_stall_crawl_us;
atomic_t tdsim_stalls = ATOMIC_INIT(0);

static struct tdsim_cpu __percpu *tdsim_cpus;
static struct dentry *tdsim_debugfs;
static enum cpuhp_state tdsim_hp_state;
/* protects the read-modify-write of a profile or schedule by concurrent writers */
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
	struct tdsim_phase_text {
		struct tdsim_profile p;
		u32 ms;
	} *ph;
	unsigned int k, nr = 0;
	unsigned long flags;
	int len = 0;
	ssize_t ret;
	char *buf;

	buf = kmalloc(TDSIM_SCHEDULE_MAX, GFP_KERNEL);
	ph = kmalloc_array(TDSIM_MAX_PHASES, sizeof(*ph), GFP_KERNEL);
	if (!buf || !ph) {
		ret = -ENOMEM;
		goto out;
	}
	raw_spin_lock_irqsave(&sc->lock, flags);
	if (sc->plan->period_ns)
		nr = sc->plan->nr;
	for (k = 0; k < nr; k++) {
		ph[k].p = sc->plan->ph[k].p;
		ph[k].ms = div_u64(sc->plan->ph[k].ns, NSEC_PER_MSEC);
	}
	raw_spin_unlock_irqrestore(&sc->lock, flags);

	if (!nr)
		len = scnprintf(buf, TDSIM_SCHEDULE_MAX, "off\n");
	for (k = 0; k < nr; k++) {
		len += scnprintf(buf + len, TDSIM_SCHEDULE_MAX - len, "ms=%u ",
				 ph[k].ms);
		len += tdsim_profile_print(sc->model, &ph[k].p, ' ', buf + len,
					   TDSIM_SCHEDULE_MAX - len);
		buf[len - 1] = '\n';	/* the last item's separator */
	}
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
out:
	kfree(ph);
	kfree(buf);
	return ret;
}

static ssize_t tdsim_schedule_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct tdsim_cpu *sc = file->private_data;
	struct tdsim_profile steady, *p;
	u32 ms[TDSIM_MAX_PHASES];
	unsigned long flags;
	bool running;
	char *buf;
	int ret;

	/* one write holds the whole schedule, so a bad one changes nothing */
	if (*ppos || count >= TDSIM_SCHEDULE_MAX) {
		pr_info("schedule: write all of it at once, under %d bytes\n",
			TDSIM_SCHEDULE_MAX);
		return -EINVAL;
	}
	p = kmalloc_array(TDSIM_MAX_PHASES, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf)) {
		kfree(p);
		return PTR_ERR(buf);
	}

	mutex_lock(&tdsim_profile_lock);
	raw_spin_lock_irqsave(&sc->lock, flags);
	steady = sc->profile;
	running = sc->plan->period_ns != 0;
	raw_spin_unlock_irqrestore(&sc->lock, flags);
	ret = tdsim_schedule_parse(sc->model, buf, &steady, p, ms);
	if (ret > 0)
		ret = tdsim_cpu_set_schedule(sc, p, ms, ret);
	else if (!ret && running)	/* off: back to the steady profile */
		ret = tdsim_cpu_set_profile(sc, &steady);
	mutex_unlock(&tdsim_profile_lock);
	kfree(buf);
	kfree(p);
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
	u64 truth[TDSIM_NR_TRUTH], at;
	unsigned int t;
	int ret, len;

	if (!*ppos) {
		tf->len = 0;
		ret = tdsim_cpu_truth(sc, READ_ONCE(sc->truth_at), &at, truth);
		if (ret)
			return ret;
		len = scnprintf(tf->buf, TDSIM_TRUTH_MAX, "at_ns %llu\n", at);
		for (t = 0; t < TDSIM_NR_TRUTH; t++)
			if (tdsim_truth_valid(sc->model, t))
				len += scnprintf(tf->buf + len,
						 TDSIM_TRUTH_MAX - len,
						 "%s %llu\n",
						 tdsim_truth_name(t), truth[t]);
		tf->len = len;
	}
	return simple_read_from_buffer(ubuf, count, ppos, tf->buf, tf->len);
}

/* The moment later reads show: CLOCK_MONOTONIC ns, or "now" (or 0). */
static ssize_t tdsim_truth_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct tdsim_truth_file *tf = file->private_data;
	char buf[32], *text;
	u64 at = 0;

	if (count < sizeof(buf)) {
		if (copy_from_user(buf, ubuf, count))
			return -EFAULT;
		buf[count] = '\0';
		text = strim(buf);
		if (!strcmp(text, "now") || !kstrtou64(text, 10, &at)) {
			WRITE_ONCE(tf->sc->truth_at, at);
			return count;
		}
	}
	pr_info("cpu%u truth: write a time in ns (CLOCK_MONOTONIC), 0 or now\n",
		tf->sc->cpu);
	return -EINVAL;
}

static const struct file_operations tdsim_truth_fops = {
	.owner		= THIS_MODULE,
	.open		= tdsim_truth_open,
	.read		= tdsim_truth_read,
	.write		= tdsim_truth_write,
	.llseek		= default_llseek,
	.release	= tdsim_truth_release,
};

static ssize_t tdsim_model_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[128];
	int len;

	len = scnprintf(buf, sizeof(buf), "%s %u\n", tdsim_model->name,
			tdsim_gp_counters);
	if (tdsim_hybrid)	/* the second PMU's: model, counters, CPUs */
		len += scnprintf(buf + len, sizeof(buf) - len, "%s %u %*pbl\n",
				 tdsim_atom_model->name,
				 tdsim_atom_model->gp_counters,
				 cpumask_pr_args(&tdsim_atom_cpus));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
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
 * CPU added later (a VM's vCPU hot-add) first comes online.  Present CPUs
 * only, not possible ones: each debugfs file's removal sums the mount's
 * per-CPU count over every possible CPU (8192 of them: 68 s to unload).
 */
static void tdsim_debugfs_cpu(unsigned int cpu)
{
	struct dentry *dir;
	char name[16];

	if (cpumask_test_and_set_cpu(cpu, &tdsim_dir_cpus))
		return;
	snprintf(name, sizeof(name), "cpu%u", cpu);
	dir = debugfs_create_dir(name, tdsim_debugfs);
	debugfs_create_file("profile", 0600, dir, tdsim_cpu(cpu),
			    &tdsim_profile_fops);
	debugfs_create_file("schedule", 0600, dir, tdsim_cpu(cpu),
			    &tdsim_schedule_fops);
	debugfs_create_file("truth", 0600, dir, tdsim_cpu(cpu),
			    &tdsim_truth_fops);
}

static void tdsim_debugfs_init(void)
{
	unsigned int cpu;

	tdsim_debugfs = debugfs_create_dir("tdsim", NULL);
	debugfs_create_file("model", 0444, tdsim_debugfs, NULL,
			    &tdsim_model_fops);
	debugfs_create_atomic_t("fail_event_init", 0600, tdsim_debugfs,
				&tdsim_fail_event_init);
	debugfs_create_atomic_t("fail_add", 0600, tdsim_debugfs,
				&tdsim_fail_add);
	debugfs_create_u32("noise_ppm", 0600, tdsim_debugfs, &tdsim_noise_ppm);
	debugfs_create_u32("stall_every", 0600, tdsim_debugfs, &tdsim_stall_every);
	debugfs_create_u32("stall_us", 0600, tdsim_debugfs, &tdsim_stall_us);
	debugfs_create_u32("stall_crawl_us", 0600, tdsim_debugfs,
			   &tdsim_stall_crawl_us);
	debugfs_create_atomic_t("stalls", 0400, tdsim_debugfs, &tdsim_stalls);
	tdsim_mediated_debugfs(tdsim_debugfs);
	for_each_present_cpu(cpu)
		tdsim_debugfs_cpu(cpu);
}

/* CPU hotplug: a CPU coming online, its files if it is new, its siblings */
static int tdsim_hp_online(unsigned int cpu)
{
	tdsim_debugfs_cpu(cpu);
	return tdsim_cpu_hp_online(cpu);
}

/*
 * atom_cpus= and atom_model=: a second PMU for those CPUs, of the same
 * vendor (x86 hybrid: cpu_core and cpu_atom).  counters= and fixed= are
 * the first PMU's; the second has its model's.
 */
static int __init tdsim_atom_setup(void)
{
	unsigned int i;

	if (!atom_cpus && !atom_model)
		return 0;
	if (!atom_cpus || !atom_model) {
		pr_err("atom_cpus= and atom_model= go together\n");
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(tdsim_models); i++)
		if (!strcmp(atom_model, tdsim_models[i]->name))
			tdsim_atom_model = tdsim_models[i];
	if (!tdsim_atom_model || tdsim_atom_model->vendor != tdsim_model->vendor) {
		pr_err("atom_model=%s: not a model of %s's vendor\n", atom_model,
		       tdsim_model->name);
		return -EINVAL;
	}
	if (cpulist_parse(atom_cpus, &tdsim_atom_cpus) ||
	    cpumask_empty(&tdsim_atom_cpus) ||
	    !cpumask_subset(&tdsim_atom_cpus, cpu_possible_mask)) {
		pr_err("atom_cpus=%s: not a list of possible CPUs\n", atom_cpus);
		return -EINVAL;
	}
	tdsim_hybrid = true;
	return 0;
}

static int __init tdsim_init(void)
{
	struct tdsim_profile p;
	unsigned int cpu, i;
	char names[192];
	int ret;

	for (i = 0; i < ARRAY_SIZE(tdsim_models); i++)
		if (!strcmp(model, tdsim_models[i]->name))
			tdsim_own = *tdsim_models[i];
	if (!tdsim_own.name) {
		tdsim_model_names(names, sizeof(names));
		pr_err("model=%s: unknown model (known: %s)\n", model, names);
		return -EINVAL;
	}
	if (slots == 0 || slots > 255) {
		pr_err("slots=%d: must be 1..255 (PMMIR_EL1.SLOTS is 8 bits)\n",
		       slots);
		return -EINVAL;
	}
	if (slots > 0)
		tdsim_own.width = slots;
	if (pmmir > 1) {
		pr_err("pmmir=%d: must be 0 or 1\n", pmmir);
		return -EINVAL;
	}
	if (pmmir >= 0)
		tdsim_own.pmmir = pmmir;
	tdsim_model = &tdsim_own;
	if (counters > TDSIM_MAX_GP) {
		pr_err("counters=%d: must be 0..%d\n", counters, TDSIM_MAX_GP);
		return -EINVAL;
	}
	tdsim_gp_counters = counters < 0 ? tdsim_model->gp_counters : counters;
	if (fixed > (int)tdsim_model->fixed_counters) {
		pr_err("fixed=%d: must be 0..%u (%s's)\n", fixed,
		       tdsim_model->fixed_counters, tdsim_model->name);
		return -EINVAL;
	}
	tdsim_fixed_counters = fixed < 0 ? tdsim_model->fixed_counters : fixed;
	if (tdsim_noise_ppm > TDSIM_PPM) {
		pr_err("noise_ppm=%u: must be at most %u\n", tdsim_noise_ppm,
		       TDSIM_PPM);
		return -EINVAL;
	}
	ret = tdsim_atom_setup();
	if (ret)
		return ret;

	tdsim_cpus = alloc_percpu(struct tdsim_cpu);
	if (!tdsim_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tdsim_cpu *sc = tdsim_cpu(cpu);

		raw_spin_lock_init(&sc->lock);
		sc->cpu = cpu;
		sc->atom = cpumask_test_cpu(cpu, &tdsim_atom_cpus);
		sc->model = sc->atom ? tdsim_atom_model : tdsim_model;
		sc->gp_counters = sc->atom ? sc->model->gp_counters : tdsim_gp_counters;
		sc->fixed_counters = sc->atom ? sc->model->fixed_counters :
			tdsim_fixed_counters;
		tdsim_profile_default(sc->model, &p);
		ret = tdsim_cpu_set_profile(sc, &p);
		if (ret)
			goto err_release;
	}

	tdsim_debugfs_init();
	/*
	 * a sibling's hotplug changes what AnyThread events count; a CPU
	 * added later gets its files
	 */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tdsim:online",
				tdsim_hp_online, tdsim_cpu_hp_offline);
	if (ret < 0) {
		pr_err("cpuhp_setup_state: %d\n", ret);
		goto err_debugfs;
	}
	tdsim_hp_state = ret;
	ret = tdsim_pmu_register();
	if (ret) {
		pr_err("perf_pmu_register failed: %d\n", ret);
		goto err_hp;
	}
	if (watchdog) {
		ret = tdsim_watchdog_start();
		if (ret) {
			pr_err("watchdog=1: cpuhp_setup_state failed: %d\n", ret);
			goto err_pmu;
		}
	}
	pr_info("emulating %s: width %u%s, %u general-purpose and %u fixed counters%s%s\n",
		tdsim_model->name, tdsim_model->width,
		tdsim_model->vendor != TDSIM_ARM ? "" :
		tdsim_model->pmmir ? " (caps/slots)" : " (caps/slots 0)",
		tdsim_gp_counters, tdsim_fixed_counters,
		watchdog ? ", one held as by the NMI watchdog" : "",
		tdsim_anythread ? "" : ", no AnyThread");
	if (tdsim_hybrid)
		pr_info("and %s on CPUs %*pbl (PMU tdsim_atom): width %u, %u general-purpose and %u fixed counters\n",
			tdsim_atom_model->name, cpumask_pr_args(&tdsim_atom_cpus),
			tdsim_atom_model->width, tdsim_atom_model->gp_counters,
			tdsim_atom_model->fixed_counters);
	return 0;

err_pmu:
	tdsim_pmu_unregister();
err_hp:
	cpuhp_remove_state_nocalls(tdsim_hp_state);
err_debugfs:
	debugfs_remove_recursive(tdsim_debugfs);
err_release:
	for_each_possible_cpu(cpu)
		tdsim_cpu_release(tdsim_cpu(cpu));
	free_percpu(tdsim_cpus);
	return ret;
}

static void __exit tdsim_exit(void)
{
	unsigned int cpu;

	tdsim_watchdog_stop();
	tdsim_pmu_unregister();
	/* no CPU's files made after the removal */
	cpuhp_remove_state_nocalls(tdsim_hp_state);
	debugfs_remove_recursive(tdsim_debugfs);
	for_each_possible_cpu(cpu)
		tdsim_cpu_release(tdsim_cpu(cpu));
	free_percpu(tdsim_cpus);
}

module_init(tdsim_init);
module_exit(tdsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tdsim: a simulated PMU for testing topdown");
