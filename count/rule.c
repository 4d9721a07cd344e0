// SPDX-License-Identifier: MIT
/*
 * rule.c - counting's one rule (rule.h): event identity by ids, and
 * multiplex scaling.  Compiled into ebs (libebs-count-rule.a, below the
 * sampler) and into libebs's own -fPIC objects: it takes nothing but
 * include/ebs/ and the C library.
 */
#include <ebs/ebs_data.h>
#include <ebs/ebs_events.h>

#include "count/rule.h"

void count_event_ids(uint32_t *type, uint64_t *config, uint64_t config1)
{
	const struct ebs_event *n;

	if (*type != EBS_EVENT_TYPE_KMOD)
		return;
	if (config1 == EBS_EVENT_RAW) {
		*type = PERF_TYPE_RAW;
		return;
	}
	for (n = ebs_events; n->name; n++)
		if (n->gen != EBS_GEN_NONE && n->gen == *config) {
			*type = n->type;
			*config = n->config;
			return;
		}
}

bool count_event_is_clock(uint32_t type, uint64_t config, uint64_t config1)
{
	count_event_ids(&type, &config, config1);
	return type == PERF_TYPE_SOFTWARE &&
	       (config == PERF_COUNT_SW_CPU_CLOCK || config == PERF_COUNT_SW_TASK_CLOCK);
}

bool count_event_on_pmu(uint32_t type, uint64_t config, uint64_t config1)
{
	count_event_ids(&type, &config, config1);
	return type != PERF_TYPE_SOFTWARE;
}

bool count_multiplexed(bool pmu, uint64_t enabled, uint64_t running)
{
	return pmu && running && running < enabled - enabled / 1000;
}

double count_scale(bool pmu, uint64_t value, uint64_t enabled, uint64_t running)
{
	if (pmu && !running)
		return 0;
	if (!count_multiplexed(pmu, enabled, running))
		return (double)value;
	return (double)value * (double)enabled / (double)running;
}

uint64_t count_scale_u64(bool pmu, uint64_t value, uint64_t enabled, uint64_t running)
{
	unsigned __int128 v;

	if (pmu && !running)
		return 0;
	if (!count_multiplexed(pmu, enabled, running))
		return value;
	v = (unsigned __int128)value * enabled / running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void count_total__add(struct count_total *t, bool pmu, uint64_t value, uint64_t enabled,
		      uint64_t running)
{
	t->scaled += count_scale(pmu, value, enabled, running);
	t->multiplexed |= count_multiplexed(pmu, enabled, running);
	t->value += value;
	t->enabled += enabled;
	t->running += running < enabled ? running : enabled;
}

void count_thread_end(struct count_total *t, bool pmu, struct count_thread *th)
{
	count_total__add(t, pmu, th->value, th->enabled, th->running);
	th->value = th->enabled = th->running = 0;
}
