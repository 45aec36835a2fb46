// SPDX-License-Identifier: GPL-2.0
/*
 * topdown: an arm64 CPU's identity and model, and what its PMUv3 says of
 * itself: which common events it implements (PMCEID0/1_EL0) and its slots
 * per cycle (PMMIR_EL1).  Each reads the CPU's own registers: hybrid parts
 * differ per CPU.
 */
#include <linux/kernel.h>
#include <linux/bitfield.h>
#include <linux/smp.h>
#include <asm/cputype.h>
#include <asm/sysreg.h>
#ifdef TD_HAVE_ARM_PMUV3_H
#include <linux/perf/arm_pmuv3.h>
#endif
#include "topdown.h"
#include "td_internal.h"

/* This CPU's model from its MIDR_EL1; called on the CPU itself. */
const struct td_model *td_arch_identify(unsigned int cpu)
{
	return td_model_arm(read_cpuid_id());
}

void td_arch_describe(unsigned int cpu, char *buf, size_t len)
{
	u32 midr = read_cpuid_id();

	scnprintf(buf, len, "MIDR %#010x (implementer %#x part %#x)", midr,
		  MIDR_IMPLEMENTOR(midr), MIDR_PARTNUM(midr));
}

static void td_read_pmceid(void *id)
{
	((u64 *)id)[0] = read_sysreg(pmceid0_el0);
	((u64 *)id)[1] = read_sysreg(pmceid1_el0);
}

/*
 * Whether @cpu's PMUv3 implements the common event @config: armv8pmu takes
 * any raw number, and one not implemented counts nothing.  PMCEID0/1_EL0
 * cover events 0x0-0x3f in their low halves and 0x4000-0x403f in their high
 * halves; IMPLEMENTATION DEFINED numbers cannot be asked about and are
 * taken as counted.
 */
bool td_arch_implements(unsigned int cpu, u64 config)
{
	unsigned int reg, bit;
	u64 id[2];

	if (config < 0x40) {
		reg = config / 32;
		bit = config % 32;
	} else if (config >= 0x4000 && config < 0x4040) {
		reg = (config - 0x4000) / 32;
		bit = 32 + (config - 0x4000) % 32;
	} else {
		return true;
	}
	smp_call_function_single(cpu, td_read_pmceid, id, 1);
	return id[reg] >> bit & 1;
}

/*
 * PMMIR_EL1 exists from PMUv3p4 on (ID_AA64DFR0_EL1.PMUVer >= 5, 0xf being
 * an IMPLEMENTATION DEFINED PMU); its SLOTS field is the slots per cycle
 * that STALL_SLOT counts and perf's #slots.  Read as arm_pmuv3's
 * __armv8pmu_probe_pmu() does, but on each CPU, not one per PMU.
 */
#define TD_DFR0_PMUVER		GENMASK_ULL(11, 8)
#define TD_PMUVER_V3P4		0x5
#define TD_PMUVER_IMP_DEF	0xf
#define TD_PMMIR_SLOTS		GENMASK_ULL(7, 0)

static void td_read_pmmir_slots(void *slots)
{
	u64 ver = FIELD_GET(TD_DFR0_PMUVER, read_sysreg(id_aa64dfr0_el1));

	*(unsigned int *)slots = 0;
	if (ver >= TD_PMUVER_V3P4 && ver != TD_PMUVER_IMP_DEF)
		*(unsigned int *)slots = FIELD_GET(TD_PMMIR_SLOTS,
						   read_sysreg_s(SYS_PMMIR_EL1));
}

/* @cpu's PMMIR_EL1.SLOTS, 0 where it has no PMMIR_EL1 */
unsigned int td_arch_pmmir_slots(unsigned int cpu)
{
	unsigned int slots;

	smp_call_function_single(cpu, td_read_pmmir_slots, &slots, 1);
	return slots;
}

/*
 * perf's hw.idx of fixed counter @n: arm_pmuv3's cycle counter is
 * ARMV8_PMU_CYCLE_IDX where include/linux/perf/arm_pmuv3.h has it, else 0
 * (6.1); tdsim (@own_pmu false) numbers its counters as x86 does.
 */
int td_arch_fixed_idx(unsigned int n, bool own_pmu)
{
	if (!own_pmu)
		return 32 + n;
#ifdef ARMV8_PMU_CYCLE_IDX
	return ARMV8_PMU_CYCLE_IDX;
#else
	return 0;
#endif
}
