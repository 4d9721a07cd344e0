/* golden.c - the source tests/report/golden.s claims, for annotate's golden test */

static inline int helper(int x)
{
	return x * 3;			/* helper's own line */
}

int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)	/* the loop */
		s += i;			/* the hot line */
	s = helper(s);			/* helper inlined here */
	return s;
}

int cold(void)
{
	return 1;
}

/* a function inlined into itself, as gcc does with recursion */
int twice(int x)
{
	return x ? twice(x - 1) + 2 : 0;
}
