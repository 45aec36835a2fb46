// SPDX-License-Identifier: GPL-2.0
/*
 * td_midr MIDR...: the model td_model_arm() gives each MIDR_EL1 ("none"
 * for none), one per line, for arm_identity.py to check against perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include "td_model.h"

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const struct td_model *m = td_model_arm(strtoul(argv[i], NULL, 0));

		printf("%s %s\n", argv[i], m ? m->name : "none");
	}
	return 0;
}
