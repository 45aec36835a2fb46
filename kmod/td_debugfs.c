// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: debugfs, under /sys/kernel/debug/topdown/.
 *
 *   cpuN/level1   Level 1 in percent, adding up to exactly 100.00
 *   cpuN/level2   Level 2, each pair adding up to its parent
 *   cpuN/raw      per event: name, delta, total, enabled_ns, running_ns
 *   cpuN/info     model, state, multiplexing, event sets and how the
 *                 interval was counted
 *   interval_ms   sampling interval (0600)
 *   running       1 while counting; write 1 to start, 0 to stop (0600,
 *                 CAP_PERFMON or CAP_SYS_ADMIN)
 *   models        supported model names
 *   stats         the sampling work's counts and cost, errors, and the
 *                 per-CPU memory allocated (td_cpu_memory())
 *
 * Files exist for every present CPU from load to unload, so hotplug never
 * removes a file under a reader; a CPU added later gets its files when it
 * first comes online.  Not for every possible CPU: each removal sums the
 * debugfs mount's per-CPU count over all of them, which makes unloading
 * slow with thousands.
 *
 * The levels and raw counts are the CPU's sample, as netlink publishes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "topdown.h"
#include "td_math.h"

static struct dentry *td_dir;

/* Level 1 of @s in 0.01 %, adding up to 10000; false if it has none */
static bool td_l1_centi(const struct td_sample *s, u32 *centi)
{
	if (s->state != TD_STATE_OK)
		return false;
	/* nodes a model does not measure are 0 and stay 0 */
	td_to_centi(s->result.l1, TD_NR_L1, centi);
	return true;
}

/* a show() of the CPU's sample: @print it, from a copy taken under its lock */
static int td_show_sample(struct seq_file *m,
			  void (*print)(struct seq_file *m, const struct td_sample *s))
{
	const struct td_cpu *tc = m->private;
	struct td_sample *s = td_sample_alloc();

	if (!s)
		return -ENOMEM;
	td_cpu_sample(tc->cpu, s);
	print(m, s);
	kfree(s);
	return 0;
}

static void td_level1_print(struct seq_file *m, const struct td_sample *s)
{
	u32 centi[TD_NR_L1];
	unsigned int i;
	bool ok = td_l1_centi(s, centi);

	for (i = 0; i < TD_NR_L1; i++) {
		bool has = s->model && td_model_has_l1(s->model, i);

		/* the four common nodes always; the others where they exist */
		if (i >= TD_SMT_CONTENTION && !has)
			continue;
		if (ok && has)
			seq_printf(m, "%s %u.%02u\n", td_l1_names[i],
				   centi[i] / 100, centi[i] % 100);
		else
			seq_printf(m, "%s n/a\n", td_l1_names[i]);
	}
}

static int td_level1_show(struct seq_file *m, void *unused)
{
	return td_show_sample(m, td_level1_print);
}
DEFINE_SHOW_ATTRIBUTE(td_level1);

/*
 * The model's Level 2 nodes, pair by pair, each pair in node order (the
 * Core and Zen models: the eight of enum td_l2); nothing for a model with
 * no Level 2 or a CPU with no model
 */
static void td_level2_print(struct seq_file *m, const struct td_sample *s)
{
	const struct td_model *md = s->model;
	u32 centi[TD_NR_L1], l2[TD_NR_L2];
	unsigned int i, j, node[2];
	bool ok = td_l1_centi(s, centi) && s->result.has_l2;

	for (i = 0; md && i < md->nr_pairs; i++) {
		const struct td_pair *p = &md->pairs[i];

		/* split each printed parent, so the printed pair adds up to it */
		if (ok)
			td_split(centi[p->parent], (s->result.l2[p->child] + 50) / 100,
				 &l2[p->child], &l2[p->sibling]);
		node[0] = min(p->child, p->sibling);
		node[1] = max(p->child, p->sibling);
		for (j = 0; j < 2; j++) {
			if (ok)
				seq_printf(m, "%s %u.%02u\n", td_l2_names[node[j]],
					   l2[node[j]] / 100, l2[node[j]] % 100);
			else
				seq_printf(m, "%s n/a\n", td_l2_names[node[j]]);
		}
	}
}

static int td_level2_show(struct seq_file *m, void *unused)
{
	return td_show_sample(m, td_level2_print);
}
DEFINE_SHOW_ATTRIBUTE(td_level2);

static void td_raw_print(struct seq_file *m, const struct td_sample *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		const struct td_sample_count *c = &s->counts[i];

		if (!(s->present & BIT(i)))
			continue;
		seq_printf(m, "%s %llu %llu %llu %llu%s\n", c->name, c->delta,
			   c->total, c->enabled, c->running,
			   c->running ? "" : " not-counted");
	}
}

static int td_raw_show(struct seq_file *m, void *unused)
{
	return td_show_sample(m, td_raw_print);
}
DEFINE_SHOW_ATTRIBUTE(td_raw);

/* info: the CPU's model, PMU and state, and how its last interval went */
static void td_info_state(struct seq_file *s, const struct td_cpu *tc)
{
	unsigned int i, open = 0;

	for (i = 0; i < tc->nr; i++)
		open += !!tc->ctr[i].event;
	seq_printf(s, "model %s\n", tc->model ? tc->model->name : "none");
	seq_printf(s, "width %u\n", tc->model ? tc->model->width : 0);
	seq_printf(s, "pmu %s\n", tc->pmu_name[0] ? tc->pmu_name : "none");
	seq_printf(s, "slots_from %s\n", td_slots_from_name(tc->slots_from));
	if (tc->state == TD_STATE_ERROR)
		seq_printf(s, "state error %d%s%s\n", tc->err,
			   tc->err_event ? " " : "",
			   tc->err_event ? tc->err_event : "");
	else
		seq_printf(s, "state %s\n", td_state_name(tc->state));
	seq_printf(s, "counters %u\n", open);
	seq_printf(s, "guest %s\n", READ_ONCE(td_config()->count_guest) ?
		   "counted" : "excluded");
	seq_printf(s, "multiplexed %s\n", !tc->seq ? "n/a" :
		   td_multiplexed(tc) ? "yes" : "no");
	/* the latest interval's snapshots' widest spread, when taken slow */
	if (tc->seq)
		seq_printf(s, "skewed %s (%llu ns)\n",
			   tc->skewed ? "yes" : "no", tc->skew_ns);
	else
		seq_puts(s, "skewed n/a\n");
	seq_printf(s, "skewed_intervals %llu\n", tc->skewed_intervals);
	seq_printf(s, "running_ratio %u.%06u\n", tc->mux_ppm / TD_PPM,
		   tc->mux_ppm % TD_PPM);
}

/* info: its sets, their turns and regression, counters held, snapshots */
static void td_info_sets(struct seq_file *s, const struct td_cpu *tc)
{
	unsigned int i;

	/* the SMT setting, and where skl's formulas depend on it, which ones */
	seq_printf(s, "smt %s%s\n", tc->smt ? "on" : "off",
		   !tc->smt || !tc->model || !tc->model->smt_only ? "" :
		   tc->any_refused ? " (per-thread: AnyThread refused)" :
		   tc->core_wide ? " (core-wide: AnyThread)" : "");
	seq_printf(s, "sets %u\n", tc->nr_sets);
	seq_printf(s, "rounds %u\n", tc->sets.nr ? tc->plan.ticks / tc->sets.nr : 0);
	seq_printf(s, "switch_avg_ns %llu\n", tc->plan.switch_avg_ns);
	seq_printf(s, "budget_cuts %llu\n", tc->plan.budget_cuts);
	seq_printf(s, "calm %u (level1 spread %u.%04u %%, %llu broken)\n",
		   tc->calm.intervals, tc->calm.spread / 10000, tc->calm.spread % 10000,
		   tc->calm.breaks);
	seq_printf(s, "regressed %u of %u\n", tc->regressed, tc->turns);
	seq_printf(s, "scaled_alone %llu\n", tc->scaled_alone);
	seq_printf(s, "time_scaled %u\n", tc->time_scaled);
	for (i = 0; i < 3 && i < READ_ONCE(td_config()->level); i++)
		seq_printf(s, "counted_level%u %u.%06u\n", i + 1,
			   tc->counted[i] / TD_PPM, tc->counted[i] % TD_PPM);
	seq_printf(s, "gp_free %u\n", tc->gp);
	seq_printf(s, "fixed %u\n", tc->fixed);
	seq_puts(s, "held");
	for (i = 0; i < 32; i++)
		if (tc->held_fixed & BIT(i))
			seq_printf(s, " fixed%u", i);
	if (tc->held_gp)
		seq_printf(s, " gp%u", tc->held_gp);
	seq_puts(s, tc->held_fixed || tc->held_gp ? "\n" : " none\n");
	seq_printf(s, "restarts %llu\n", tc->restarts);
	seq_printf(s, "snapshot_min_ns %llu\n", tc->snap.min_ns);
	seq_printf(s, "snapshot_retries %llu\n", tc->snap.retries);
	seq_printf(s, "snapshot_rereads %llu\n", tc->snap.rereads);
	seq_printf(s, "snapshot_slow %llu\n", tc->snap.slow);
	seq_printf(s, "snapshot_slow_max_ns %llu\n", tc->snap.max_ns);
	seq_printf(s, "snapshot_waits %llu\n", tc->snap.waits);
	seq_printf(s, "snapshot_turn_waits %llu\n", tc->snap.turn_waits);
	seq_printf(s, "seq %llu\n", tc->seq);
	seq_printf(s, "start_ns %llu\n", tc->start_ns);
	seq_printf(s, "end_ns %llu\n", tc->end_ns);
}

static int td_info_show(struct seq_file *s, void *unused)
{
	struct td_cpu *tc = s->private;

	mutex_lock(&tc->lock);
	td_info_state(s, tc);
	td_info_sets(s, tc);
	mutex_unlock(&tc->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(td_info);

static int td_models_show(struct seq_file *s, void *unused)
{
	unsigned int i;

	for (i = 0; i < td_nr_models; i++)
		seq_printf(s, "%s\n", td_models[i]->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(td_models);

static int td_stats_show(struct seq_file *s, void *unused)
{
	struct td_stats st;

	td_stats_sum(&st);
	seq_printf(s, "samples %llu\nticks %llu\ncost_ns %llu\nswitch_ns %llu\nswitches %llu\n",
		   st.samples, st.ticks, st.cost_ns, st.switch_ns, st.switches);
	seq_printf(s, "read_ns %llu\nreads %llu\nreread_ns %llu\nnotify_ns %llu\nerrors %llu\n",
		   st.read_ns, st.reads, st.reread_ns, st.notify_ns, st.errors);
	/* one message a datagram, each built afresh */
	seq_printf(s, "ntf_msgs %llu\nntf_dgrams %llu\nntf_built %llu\n",
		   st.ntf_msgs, st.ntf_msgs, st.ntf_msgs);
	seq_printf(s, "memory_bytes %zu\n", td_cpu_memory());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(td_stats);

static ssize_t td_interval_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n",
			    READ_ONCE(td_config()->interval_ms));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t td_interval_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &ms);
	if (ret || ms < TD_INTERVAL_MIN_MS || ms > TD_INTERVAL_MAX_MS) {
		pr_info("interval_ms: want %u..%u ms; kept %u\n",
			TD_INTERVAL_MIN_MS, TD_INTERVAL_MAX_MS,
			READ_ONCE(td_config()->interval_ms));
		return -EINVAL;
	}
	td_set_interval(ms);
	return count;
}

static const struct file_operations td_interval_fops = {
	.owner	= THIS_MODULE,
	.read	= td_interval_read,
	.write	= td_interval_write,
	.llseek	= default_llseek,
};

static ssize_t td_running_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[4];
	int len = scnprintf(buf, sizeof(buf), "%d\n", td_running());

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t td_running_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	/* as the netlink family asks: the file's mode alone is root's */
	if (!perfmon_capable())
		return -EPERM;
	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret) {
		pr_info("running: want 1 (start) or 0 (stop); kept %d\n",
			td_running());
		return ret;
	}
	ret = td_set_running(on);
	return ret ? ret : count;
}

static const struct file_operations td_running_fops = {
	.owner	= THIS_MODULE,
	.read	= td_running_read,
	.write	= td_running_write,
	.llseek	= default_llseek,
};

static struct cpumask td_dir_cpus;	/* the CPUs with a directory */
static enum cpuhp_state td_dir_state;

/*
 * @cpu's directory and files, once: for a CPU present at load, and from
 * CPU hotplug's online callback (which runs one at a time) for one added
 * later
 */
static int td_debugfs_cpu(unsigned int cpu)
{
	struct td_cpu *tc = td_cpu_of(cpu);
	struct dentry *d;
	char name[16];

	if (cpumask_test_and_set_cpu(cpu, &td_dir_cpus))
		return 0;
	snprintf(name, sizeof(name), "cpu%u", cpu);
	d = debugfs_create_dir(name, td_dir);
	/* counters are a side channel: root only, as perf's CPU events */
	debugfs_create_file("level1", 0400, d, tc, &td_level1_fops);
	debugfs_create_file("level2", 0400, d, tc, &td_level2_fops);
	debugfs_create_file("raw", 0400, d, tc, &td_raw_fops);
	debugfs_create_file("info", 0400, d, tc, &td_info_fops);
	return 0;
}

/** td_debugfs_init() - create every file, for every present CPU; 0 or errno */
int td_debugfs_init(void)
{
	unsigned int cpu;
	int ret;

	td_dir = debugfs_create_dir("topdown", NULL);
	debugfs_create_file("interval_ms", 0600, td_dir, NULL, &td_interval_fops);
	debugfs_create_file("running", 0600, td_dir, NULL, &td_running_fops);
	debugfs_create_file("models", 0444, td_dir, NULL, &td_models_fops);
	debugfs_create_file("stats", 0444, td_dir, NULL, &td_stats_fops);
	for_each_present_cpu(cpu)
		td_debugfs_cpu(cpu);
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "topdown/debugfs:online",
					td_debugfs_cpu, NULL);
	if (ret < 0) {
		td_debugfs_exit();
		return ret;
	}
	td_dir_state = ret;
	return 0;
}

/** td_debugfs_exit() - remove them; waits for readers to leave */
void td_debugfs_exit(void)
{
	if (td_dir_state > 0)
		cpuhp_remove_state_nocalls(td_dir_state);
	td_dir_state = 0;
	debugfs_remove_recursive(td_dir);
	cpumask_clear(&td_dir_cpus);
}
