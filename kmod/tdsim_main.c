// SPDX-License-Identifier: GPL-2.0
/* placeholder while tdsim is written */
#include <linux/module.h>
static int __init tdsim_init(void) { return 0; }
static void __exit tdsim_exit(void) { }
module_init(tdsim_init);
module_exit(tdsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tdsim placeholder");
