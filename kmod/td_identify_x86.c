// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: an x86 CPU's identity and model.  Intel and AMD CPUs say their
 * family and model in CPUID; hybrid parts say each core's type in leaf 0x1a.
 */
#include <linux/kernel.h>
#include <asm/processor.h>
#include <asm/cpufeature.h>
#include "topdown.h"
#include "td_internal.h"
#include "td_compat.h"

/* This CPU's model from its identity; called on the CPU itself. */
const struct td_model *td_arch_identify(unsigned int cpu)
{
	struct cpuinfo_x86 *c = &cpu_data(cpu);
	int core_type = TD_NOT_HYBRID;

	if (c->x86_vendor != X86_VENDOR_INTEL && c->x86_vendor != X86_VENDOR_AMD)
		return NULL;
	if (boot_cpu_has(X86_FEATURE_HYBRID_CPU) && c->cpuid_level >= 0x1a)
		core_type = cpuid_eax(0x1a);
	return td_model_x86(c->x86_vendor == X86_VENDOR_INTEL ? TD_X86_INTEL : TD_X86_AMD,
			    c->x86, c->x86_model, core_type);
}

void td_arch_describe(unsigned int cpu, char *buf, size_t len)
{
	struct cpuinfo_x86 *c = &cpu_data(cpu);

	scnprintf(buf, len, "%s family %#x model %#x", c->x86_vendor_id,
		  c->x86, c->x86_model);
}

/* x86 PMUs cannot be asked which raw events they implement */
bool td_arch_implements(unsigned int cpu, u64 config)
{
	return true;
}

unsigned int td_arch_pmmir_slots(unsigned int cpu)
{
	return 0;
}

/* perf's hw.idx of fixed counter @n: INTEL_PMC_IDX_FIXED + n (tdsim's too) */
int td_arch_fixed_idx(unsigned int n, bool own_pmu)
{
	return 32 + n;
}
