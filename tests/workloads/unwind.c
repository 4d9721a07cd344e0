// SPDX-License-Identifier: MIT
/*
 * unwind - call stacks an unwinder must get through, each in one mode:
 *
 *   unwind qsort [SECONDS]   sort_loop() sorts with libc's qsort(); the time
 *                            is in the comparator cmp_hot(), whose callers
 *                            are libc's sorting code, then qsort_loop, main
 *   unwind signal [SECONDS]  a SIGPROF handler, on_prof(), does the work in
 *                            handler_work(); the interrupted code is
 *                            spin_main().  handler_work's chain passes the
 *                            kernel's signal frame (libc's __restore_rt) to
 *                            spin_main and main
 *   unwind deep [SECONDS]    deep_leaf() at the bottom of DEEP_FRAMES calls
 *                            of recurse(), each with a 256-byte frame: more
 *                            stack (about 300 KiB) than any copy holds
 *   unwind badfp [SECONDS]   badfp_spin() spins with rbp pointing at a fake
 *                            frame whose return address no user code can
 *                            have (0x0fdd00007f000001), then 0x200: a
 *                            frame-pointer walk gone astray, as through code
 *                            built without frame pointers whose rbp holds
 *                            data.  Its caller, badfp_loop(), CFI finds
 *   unwind fault [SECONDS]   fault_first()'s first instruction writes to a
 *                            fresh page: the time is the kernel's, handling
 *                            the fault, with the user IP at fault_first's
 *                            first byte.  The function just before it,
 *                            before_fault(), is never run: a chain naming it
 *                            took that IP for a return address
 *   unwind nocfi [SECONDS]   nocfi_spin() has no CFI (assembler without .cfi
 *                            directives) and spins with rbp at fake frames
 *                            whose return addresses are mapped nowhere: a
 *                            stack address, then "ebsjunk" (0x006b6e756a736265,
 *                            below 2^56), or the other way round, every other
 *                            call.  Past it, unwinders that guess through rbp
 *                            (libunwind without CFI, the kernel's -g walk)
 *                            read those words as callers: a chain must end
 *                            at nocfi_spin instead
 *
 * Built without frame pointers: only CFI unwinds it.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>

#include "workload.h"

#define DEEP_FRAMES 1200

static volatile unsigned long sink;

WL_NOINLINE int cmp_hot(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	/* some work per comparison, so that the comparator is the hot spot */
	WL_STEPS(sink, 40);
	return x < y ? -1 : x > y;
}

WL_NOINLINE void qsort_loop(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	unsigned long v[256], r = 1;

	do {
		for (unsigned int i = 0; i < 256; i++) {
			r = r * 6364136223846793005UL + 1442695040888963407UL;
			v[i] = r >> 11;
		}
		qsort(v, 256, sizeof(v[0]), cmp_hot);
	} while (wl_thread_cpu() < end);
	sink += v[0];
}

WL_NOINLINE void handler_work(void)
{
	WL_STEPS(sink, 400000);
}

static void on_prof(int sig)
{
	(void)sig;
	handler_work();
	sink++;
}

WL_NOINLINE void spin_main(double seconds)
{
	struct itimerval it = {.it_interval = {0, 2000}, .it_value = {0, 2000}};
	struct sigaction sa = {.sa_handler = on_prof};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	WL_SPIN(sink, seconds, 1000);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
}

/* before_fault ends where fault_first starts: no padding between them */
void before_fault(void);
void fault_first(volatile char *p);
__asm__(".text\n"
	".globl before_fault\n.type before_fault, @function\n"
	"before_fault:\n.cfi_startproc\nret\n.cfi_endproc\n.size before_fault, .-before_fault\n"
	".globl fault_first\n.type fault_first, @function\n"
	"fault_first:\n.cfi_startproc\nmovb $1, (%rdi)\nret\n.cfi_endproc\n"
	".size fault_first, .-fault_first\n");

WL_NOINLINE void fault_loop(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	size_t len = 16u << 20;

	do {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "unwind: mmap %zu bytes: %s\n", len, strerror(errno));
			exit(1);
		}
		madvise(p, len, MADV_NOHUGEPAGE); /* one fault per 4 KiB page */
		for (size_t off = 0; off < len; off += 4096)
			fault_first(p + off);
		munmap(p, len);
	} while (wl_thread_cpu() < end);
}

/* badfp's fake frames: { next frame, return address } twice, the last next 0 */
static unsigned long fake_frames[4];

WL_NOINLINE void badfp_spin(unsigned long n)
{
#if defined(__x86_64__)
	/* rbp clobbered: the compiler saves it around, and puts no operand in it */
	__asm__ __volatile__("mov %1, %%rbp\n\t"
			     "1: sub $1, %0\n\t"
			     "jnz 1b"
			     : "+r"(n)
			     : "r"(fake_frames)
			     : "rbp", "cc", "memory");
#else
	WL_STEPS(sink, n);
#endif
}

WL_NOINLINE void badfp_loop(double seconds)
{
	double end = wl_thread_cpu() + seconds;

	fake_frames[0] = (unsigned long)&fake_frames[2];
	fake_frames[1] = 0x0fdd00007f000001UL;
	fake_frames[2] = 0;
	fake_frames[3] = 0x200;
	do
		badfp_spin(2000000);
	while (wl_thread_cpu() < end);
}

/*
 * nocfi_spin(n, frame): n turns with rbp = frame, in code with no CFI: the
 * assembler writes an FDE only between .cfi_startproc and .cfi_endproc.
 */
void nocfi_spin(unsigned long n, const unsigned long *frame);
#if defined(__x86_64__)
__asm__(".text\n"
	".globl nocfi_spin\n.type nocfi_spin, @function\n"
	"nocfi_spin:\n"
	"push %rbp\n"
	"mov %rsi, %rbp\n"
	"1: sub $1, %rdi\n"
	"jnz 1b\n"
	"pop %rbp\n"
	"ret\n"
	".size nocfi_spin, .-nocfi_spin\n");
#else
void nocfi_spin(unsigned long n, const unsigned long *frame)
{
	(void)frame;
	WL_STEPS(sink, n);
}
#endif

WL_NOINLINE void nocfi_loop(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	volatile unsigned long on_stack = 0;
	/* two chains of { next frame, return address }: the last next is 0 */
	unsigned long a[4], b[4];
	unsigned int i = 0;

	a[0] = (unsigned long)&a[2];
	a[1] = (unsigned long)&on_stack;
	a[2] = 0;
	a[3] = 0x006b6e756a736265UL; /* "ebsjunk" */
	b[0] = (unsigned long)&b[2];
	b[1] = a[3];
	b[2] = 0;
	b[3] = a[1];
	do
		nocfi_spin(2000000, i++ % 2 ? b : a);
	while (wl_thread_cpu() < end);
	sink += on_stack;
}

WL_NOINLINE void deep_leaf(double end)
{
	do
		WL_STEPS(sink, 100000);
	while (wl_thread_cpu() < end);
}

WL_NOINLINE void recurse(int n, double end)
{
	volatile char pad[256];

	pad[0] = (char)n;
	if (n > 0)
		recurse(n - 1, end);
	else
		deep_leaf(end);
	sink += (unsigned long)pad[0];
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double seconds = wl_arg(argc, argv, 2, 0.5);

	if (!strcmp(mode, "qsort"))
		qsort_loop(seconds);
	else if (!strcmp(mode, "signal"))
		spin_main(seconds);
	else if (!strcmp(mode, "deep"))
		recurse(DEEP_FRAMES, wl_thread_cpu() + seconds);
	else if (!strcmp(mode, "fault"))
		fault_loop(seconds);
	else if (!strcmp(mode, "badfp"))
		badfp_loop(seconds);
	else if (!strcmp(mode, "nocfi"))
		nocfi_loop(seconds);
	else {
		fprintf(stderr, "usage: %s qsort|signal|deep|fault|badfp|nocfi [SECONDS]\n",
			argv[0]);
		return 2;
	}
	return 0;
}
