// SPDX-License-Identifier: GPL-2.0
/*
 * tdsim: the rule a mediated vPMU sets for the host's events (7.0+,
 * kernel/events/core.c mediated_pmu_account_event() and
 * perf_create_mediated_pmu()).  On a PMU with PERF_PMU_CAP_MEDIATED_VPMU,
 * an event without exclude_guest counts guest time: while one exists, KVM
 * cannot create a VM with a mediated PMU (-EBUSY); while such a VM exists,
 * no such event can be created (-EOPNOTSUPP).  The kernel's own counts
 * are exported to KVM only, so tdsim keeps its own, on every kernel, and
 * debugfs mediated_vms stands for creating and ending such VMs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "tdsim.h"

/* protects both counts: event inits and the knob test one and change the other */
static DEFINE_SPINLOCK(tdsim_med_lock);
static unsigned int tdsim_med_vms;	/* mediated VMs "running" */
static unsigned int tdsim_med_events;	/* events that count guest time */

static void tdsim_mediated_destroy(struct perf_event *event)
{
	spin_lock(&tdsim_med_lock);
	tdsim_med_events--;
	spin_unlock(&tdsim_med_lock);
}

/**
 * tdsim_mediated_account() - an event init's part of the mediated-vPMU rule
 * @event: the event being created on a tdsim PMU that a mediated vPMU
 *         can take (mediated=1)
 *
 * Return: 0, or -EOPNOTSUPP for an event that would count guest time
 * while a VM with a mediated PMU exists.
 */
int tdsim_mediated_account(struct perf_event *event)
{
	int ret = 0;

	if (event->attr.exclude_guest)
		return 0;
	spin_lock(&tdsim_med_lock);
	if (tdsim_med_vms)
		ret = -EOPNOTSUPP;
	else
		tdsim_med_events++;
	spin_unlock(&tdsim_med_lock);
	if (!ret)
		event->destroy = tdsim_mediated_destroy;
	return ret;
}

static int tdsim_med_show(struct seq_file *s, void *unused)
{
	spin_lock(&tdsim_med_lock);
	seq_printf(s, "vms %u\ninclude_guest_events %u\n", tdsim_med_vms,
		   tdsim_med_events);
	spin_unlock(&tdsim_med_lock);
	return 0;
}

static int tdsim_med_open(struct inode *inode, struct file *file)
{
	return single_open(file, tdsim_med_show, inode->i_private);
}

/* "create": a VM with a mediated PMU starts; "destroy": one ends */
static ssize_t tdsim_med_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct tdsim *sim = ((struct seq_file *)file->private_data)->private;
	char buf[16];
	int ret = 0;

	if (len >= sizeof(buf)) {
		buf[0] = '\0';
	} else {
		if (copy_from_user(buf, ubuf, len))
			return -EFAULT;
		buf[len] = '\0';
	}
	strim(buf);
	spin_lock(&tdsim_med_lock);
	if (!sim->mediated)
		ret = -EOPNOTSUPP;
	else if (!strcmp(buf, "create") && tdsim_med_events)
		ret = -EBUSY;
	else if (!strcmp(buf, "create"))
		tdsim_med_vms++;
	else if (!strcmp(buf, "destroy") && tdsim_med_vms)
		tdsim_med_vms--;
	else
		ret = -EINVAL;
	spin_unlock(&tdsim_med_lock);
	if (ret == -EBUSY)
		pr_info_ratelimited("mediated_vms: create refused: events count guest time\n");
	else if (ret == -EINVAL)
		pr_info_ratelimited("mediated_vms: want create or destroy (with a VM to end)\n");
	return ret ? ret : len;
}

static const struct file_operations tdsim_med_fops = {
	.owner		= THIS_MODULE,
	.open		= tdsim_med_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= tdsim_med_write,
};

/**
 * tdsim_mediated_debugfs() - the mediated_vms knob
 * @dir: tdsim's debugfs directory
 * @sim: the simulator
 */
void tdsim_mediated_debugfs(struct dentry *dir, struct tdsim *sim)
{
	debugfs_create_file("mediated_vms", 0600, dir, sim, &tdsim_med_fops);
}
