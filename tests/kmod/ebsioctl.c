// SPDX-License-Identifier: MIT
/*
 * ebsioctl.so - preloaded into ebs in the QEMU guest (guest-init.sh): each
 * EBS_IOC_CONFIG that ebs makes is appended, as one line, to the file
 * EBS_IOCTL_LOG names, then passed on to ebs.ko.  So the guest sees what
 * sampler/kmod.c asked for where the module refuses it anyway (msr mode
 * without a PMU):
 *
 *   CONFIG mode M flags 0xF limits 0xL rate R percent P
 *
 * Built by tests/integration/kmod.sh: cc -shared -fPIC -ldl.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include <ebs/ebs_abi.h>

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *log = getenv("EBS_IOCTL_LOG");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (req == EBS_IOC_CONFIG && arg && log) {
		const struct ebs_config *c = arg;
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "CONFIG mode %u flags %#x limits %#x rate %u percent %u\n",
				c->mode, c->flags, c->limits, EBS_LIMITS_RATE(c->limits),
				EBS_LIMITS_PERCENT(c->limits));
			fclose(f);
		}
	}
	return real(fd, req, arg);
}
