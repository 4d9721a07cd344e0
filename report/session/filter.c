// SPDX-License-Identifier: MIT
/*
 * filter.c - --time, --pid and --tid: their parsers (exact: integers of
 * ns, never a double), one recording's ranges, the check of a sample's
 * ids, and the words a report's header shows.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/session/session.h"

#define BILLION	    1000000000ull
#define ALL_PERCENT (100 * REPORT_PERCENT)

/*
 * The decimal at *p (digits, then '.' and up to 9 digits; at least one
 * digit) in billionths: ns of seconds, REPORT_PERCENT of a percent.  *p
 * past it.  0; -EINVAL for none, -EDOM for more than 9 decimals, -ERANGE
 * above 2^64 billionths.
 */
static int billionths(const char **p, u64 *out)
{
	const u64 max = (UINT64_MAX - (BILLION - 1)) / BILLION;
	const char *s = *p;
	u64 whole = 0, frac = 0;
	unsigned int nd = 0, nf = 0;

	for (; *s >= '0' && *s <= '9'; s++, nd++) {
		if (whole > (max - (u64)(*s - '0')) / 10)
			return -ERANGE;
		whole = whole * 10 + (u64)(*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, nf++) {
			if (nf == 9)
				return -EDOM;
			frac = frac * 10 + (u64)(*s - '0');
		}
	if (!nd && !nf)
		return -EINVAL;
	for (; nf < 9; nf++)
		frac *= 10;
	*out = whole * BILLION + frac;
	*p = s;
	return 0;
}

/* The length of the item at p: up to the next comma or the end. */
static size_t item_len(const char *p)
{
	return strcspn(p, ",");
}

/* A number of seconds, the whole of p's len bytes ("" is none: *given false). */
static int seconds(const char *p, size_t len, u64 *ns, bool *given, struct ebs_error *err)
{
	const char *s = p;
	int e;

	*given = len > 0;
	if (!len)
		return 0;
	e = billionths(&s, ns);
	if (!e && s != p + len)
		e = -EINVAL;
	if (!e)
		return 0;
	return ebs_error__set(err, EINVAL, "'%.*s' is not %s", (int)len, p,
			      e == -EDOM     ? "exact to the ns (at most 9 decimals)"
			      : e == -ERANGE ? "a number of seconds ebs can count in ns"
					     : "a number of seconds (as 1.25)");
}

static int not_range(const char *item, size_t len, struct ebs_error *err)
{
	return ebs_error__set(err, EINVAL,
			      "'%.*s' is not a percent range (A%%-B%%, or P%%/N: the N-th slice "
			      "of P%%)",
			      (int)len, item);
}

/* A percent at *p, "12.5%", *p past it; at most 100. */
static int percent(const char **p, const char *item, size_t len, u64 *out, struct ebs_error *err)
{
	const char *s = *p;

	if (billionths(&s, out) || *s != '%')
		return not_range(item, len, err);
	if (*out > ALL_PERCENT)
		return ebs_error__set(err, EINVAL, "'%.*s': a percent above 100", (int)len, item);
	*p = s + 1;
	return 0;
}

/* One percent range, the len bytes at item: "A%-B%" or "P%/N". */
static int percent_range(const char *item, size_t len, struct report_time *t, struct ebs_error *err)
{
	const char *s = item;
	u64 n = 0;
	int e;

	if (!len)
		return ebs_error__set(err, EINVAL, "an empty range between commas");
	t->percent = true;
	e = percent(&s, item, len, &t->start, err);
	if (e)
		return e;
	if (*s == '-') {
		s++;
		e = percent(&s, item, len, &t->end, err);
		if (e)
			return e;
		if (s != item + len)
			return not_range(item, len, err);
		if (t->start >= t->end)
			return ebs_error__set(err, EINVAL,
					      "'%.*s': the start is not before the end", (int)len,
					      item);
		return 0;
	}
	if (*s != '/')
		return not_range(item, len, err); /* "5%" alone, "5%x" */
	for (s++; s < item + len && *s >= '0' && *s <= '9' && n <= ALL_PERCENT; s++)
		n = n * 10 + (u64)(*s - '0');
	if (s != item + len || !n)
		return ebs_error__set(err, EINVAL,
				      "'%.*s': N of P%%/N is not a whole number from 1", (int)len,
				      item);
	if (!t->start)
		return ebs_error__set(err, EINVAL, "'%.*s': a slice of 0%%", (int)len, item);
	if (n > ALL_PERCENT / t->start)
		return ebs_error__set(err, EINVAL, "'%.*s': the slice ends above 100%%", (int)len,
				      item);
	t->end = n * t->start;
	t->start = (n - 1) * t->start;
	return 0;
}

int report_parse_time(const char *text, struct report_time **v, size_t *n, struct ebs_error *err)
{
	struct report_time *t;
	const char *p, *comma = strchr(text, ',');
	size_t k = 1, i;
	bool a, b;
	int e;

	*v = NULL;
	*n = 0;
	if (strchr(text, '%'))
		for (p = text; *p; p++)
			k += *p == ',';
	else if (!comma || strchr(comma + 1, ','))
		return ebs_error__set(err, EINVAL,
				      "not START,END (seconds from the recording's start, either "
				      "may be empty) nor percent ranges (10%%-20%%, 25%%/2)");
	t = calloc(k, sizeof(*t));
	if (!t)
		return ebs_error__set(err, ENOMEM, "out of memory");
	if (strchr(text, '%')) {
		for (p = text, i = 0, e = 0; i < k && !e; i++) {
			e = percent_range(p, item_len(p), &t[i], err);
			p += item_len(p) + 1;
		}
	} else {
		e = seconds(text, (size_t)(comma - text), &t->start, &a, err);
		if (!e)
			e = seconds(comma + 1, strlen(comma + 1), &t->end, &b, err);
		if (!e && !a && !b)
			e = ebs_error__set(err, EINVAL, "neither a start nor an end");
		if (!e && !b)
			t->end = UINT64_MAX;
		if (!e && t->start >= t->end)
			e = ebs_error__set(err, EINVAL, "the start is not before the end");
	}
	if (e) {
		free(t);
		return e;
	}
	*v = t;
	*n = k;
	return 0;
}

static int u32_cmp(const void *pa, const void *pb)
{
	u32 a = *(const u32 *)pa, b = *(const u32 *)pb;

	return a < b ? -1 : a > b;
}

int report_parse_ids(const char *text, u32 **v, size_t *n, struct ebs_error *err)
{
	const char *p = text;
	size_t k = 1, i, j;
	u32 *ids;

	*v = NULL;
	*n = 0;
	for (p = text; *p; p++)
		k += *p == ',';
	ids = calloc(k, sizeof(*ids));
	if (!ids)
		return ebs_error__set(err, ENOMEM, "out of memory");
	for (p = text, i = 0; i < k; i++, p += item_len(p) + 1) {
		size_t len = item_len(p), d;
		u64 x = 0;

		for (d = 0; d < len && p[d] >= '0' && p[d] <= '9' && x <= INT_MAX; d++)
			x = x * 10 + (u64)(p[d] - '0');
		if (!len || d < len || !x || x > INT_MAX) {
			free(ids);
			if (!len)
				return ebs_error__set(err, EINVAL, "an empty %s",
						      k > 1 ? "item between commas" : "list");
			return ebs_error__set(err, EINVAL, "'%.*s' is not a number from 1 to %d",
					      (int)len, p, INT_MAX);
		}
		ids[i] = (u32)x;
	}
	qsort(ids, k, sizeof(*ids), u32_cmp);
	for (i = j = 0; i < k; i++)
		if (!j || ids[j - 1] != ids[i])
			ids[j++] = ids[i];
	*v = ids;
	*n = j;
	return 0;
}

void session__time_ranges(const struct report_time *t, size_t ntimes, u64 span, u64 *times)
{
	size_t i;

	for (i = 0; i < ntimes; i++) {
		if (t[i].percent) { /* floor(span * p / 100), p <= 100: no overflow */
			times[2 * i] = (u64)((unsigned __int128)span * t[i].start / ALL_PERCENT);
			times[2 * i + 1] = (u64)((unsigned __int128)span * t[i].end / ALL_PERCENT);
		} else {
			times[2 * i] = t[i].start;
			times[2 * i + 1] = t[i].end;
		}
	}
}

/* Is id one of v's n (sorted)? */
static bool has_id(const u32 *v, size_t n, u32 id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == id)
			return true;
		if (v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

bool session__ids_pass(const struct report_filter *f, u32 pid, u32 tid)
{
	return !f || ((!f->npids || has_id(f->pids, f->npids, pid)) &&
		      (!f->ntids || has_id(f->tids, f->ntids, tid)));
}

/* Append as snprintf would to buf (len bytes, *n used), never past its end. */
#define ADD(buf, len, n, ...)                                                                      \
	do {                                                                                       \
		if ((n) < (len))                                                                   \
			(n) += (size_t)snprintf((buf) + (n), (len) - (n), __VA_ARGS__);            \
		else                                                                               \
			(n) = (len);                                                               \
	} while (0)

/* x billionths as a decimal, "1.25", "0", "12" */
static void decimal(char *buf, size_t len, u64 x)
{
	int nf = 9;
	u64 frac = x % BILLION;

	while (nf && frac % 10 == 0 && frac) {
		frac /= 10;
		nf--;
	}
	if (frac)
		snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(x / BILLION), nf,
			 (unsigned long long)frac);
	else
		snprintf(buf, len, "%llu", (unsigned long long)(x / BILLION));
}

static size_t id_words(const char *what, const u32 *v, size_t k, char *buf, size_t len, size_t n)
{
	size_t i;

	ADD(buf, len, n, "%s%s ", n ? ", " : "", what);
	for (i = 0; i < k; i++)
		ADD(buf, len, n, "%s%u", i ? "," : "", v[i]);
	return n;
}

size_t session__filter_words(const struct report_filter *f, char *buf, size_t len, size_t n)
{
	char a[32], b[32];
	size_t i;

	if (f->ntimes) {
		ADD(buf, len, n, "%stime ", n ? ", " : "");
		for (i = 0; i < f->ntimes; i++) {
			const struct report_time *t = &f->times[i];

			decimal(a, sizeof(a), t->start);
			decimal(b, sizeof(b), t->end);
			if (t->percent)
				ADD(buf, len, n, "%s%s%%-%s%%", i ? "," : "", a, b);
			else if (t->end == UINT64_MAX)
				ADD(buf, len, n, "from %s s", a);
			else
				ADD(buf, len, n, "%s-%s s", a, b);
		}
	}
	if (f->npids)
		n = id_words("pid", f->pids, f->npids, buf, len, n);
	if (f->ntids)
		n = id_words("tid", f->tids, f->ntids, buf, len, n);
	return n;
}

#define WHY_IDS 5 /* ids named, at most */

/* The distinct pids (tids) among the samples of rs's recordings, the first WHY_IDS seen. */
static size_t sampled_ids(const struct session *rs, bool tids, u32 *ids, bool *more)
{
	const struct ebs_rec *rec;
	struct ebs_error err = {0};
	size_t k = 0, i, j;

	*more = false;
	for (i = 0; i < rs->nin; i++) {
		if (ebs_data__rewind(rs->in[i].d))
			continue;
		while (ebs_data__next(rs->in[i].d, &rec, &err) > 0) {
			const struct ebs_rec_sample *s = (const struct ebs_rec_sample *)rec;
			u32 id;

			if (rec->type != EBS_REC_SAMPLE)
				continue;
			id = tids ? s->tid : s->pid;
			for (j = 0; j < k && ids[j] != id; j++)
				;
			if (j < k)
				continue;
			if (k == WHY_IDS) {
				*more = true;
				break;
			}
			ids[k++] = id;
		}
	}
	return k;
}

size_t session__empty_why(const struct session *rs, char *buf, size_t len)
{
	const struct report_filter *f = rs->filter;
	u32 ids[WHY_IDS];
	size_t n = 0, i, k, w;
	bool more;

	if (len)
		buf[0] = 0;
	if (!f)
		return 0;
	if (f->ntimes) {
		ADD(buf, len, n, "the recording%s", rs->nin > 1 ? "s span" : " spans");
		for (i = 0; i < rs->nin; i++)
			ADD(buf, len, n, "%s %.3f s", i ? "," : "", (double)rs->in[i].span / 1e9);
	}
	for (w = 0; w < 2; w++) {
		if (!(w ? f->ntids : f->npids))
			continue;
		k = sampled_ids(rs, w, ids, &more);
		ADD(buf, len, n, "%s%s %s:", n ? "; " : "", rs->nin > 1 ? "their" : "its",
		    w ? "threads" : "processes");
		for (i = 0; i < k; i++)
			ADD(buf, len, n, "%s %u", i ? "," : "", ids[i]);
		if (!k)
			ADD(buf, len, n, " none");
		if (more)
			ADD(buf, len, n, ", ...");
	}
	return n;
}

/* session.h: a recording's time, as --time takes it */
void session__span(const struct session *rs, size_t input, u64 *start, u64 *span)
{
	*start = rs->in[input].start;
	*span = rs->in[input].span;
}

u64 session__rel_time(const struct session *rs, const struct resolved *r)
{
	u64 start = rs->in[r->input].start;

	return r->s->time < start ? 0 : r->s->time - start;
}
