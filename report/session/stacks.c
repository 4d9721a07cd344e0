// SPDX-License-Identifier: MIT
/*
 * stacks.c - the distinct call stacks of a file and their counts
 * (stacks.h).  Stacks are told apart by their frames' functions and
 * addresses, so that an export keeps every location; a consumer that wants
 * functions only (folded stacks, flame graphs) merges by name itself.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "count/rule.h"
#include "report/session/stacks.h"
#include "util/hash.h"

struct stack_ent {
	UT_hash_handle hh;
	size_t idx;
	size_t key_len;
	unsigned char key[]; /* (id, addr) of each frame */
};

/*
 * The arena: chunks of at least ARENA bytes, the newest first.  A stack's
 * frames and its key are allocated once and freed with all the others, so
 * they are cut from chunks (a chunk per stack cost a malloc of kilobytes
 * per sample: most of a flame graph's stacks are distinct).
 */
#define ARENA (1u << 20)

struct stack_chunk {
	struct stack_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

/* n bytes, aligned as malloc's; NULL when out of memory. */
static void *arena_alloc(struct stacks *s, size_t n)
{
	struct stack_chunk *c = s->arena;
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA ? n : ARENA;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = s->arena;
		c->used = 0;
		c->cap = cap;
		s->arena = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

struct collect {
	struct stacks *s;
	int event; /* the one event counted */
	void *key;
	size_t key_cap;
};

static int add_stack(struct collect *cl, const struct resolved *r, const struct cframe *f,
		     unsigned int n, unsigned int flags)
{
	const struct ebs_rec_sample *smp = r->s;
	struct stacks *s = cl->s;
	/* several recordings: the host first, so that each host's stacks are its own */
	const char *host = s->rs.nin > 1 ? s->rs.in[r->input].host : NULL;
	size_t len = (size_t)n * (sizeof(void *) + sizeof(u64)) + (host ? sizeof(host) : 0), i;
	unsigned int hv;
	struct stack_ent *e;
	unsigned char *k;
	struct stack *st;

	if (len > cl->key_cap) {
		void *nk = realloc(cl->key, len);

		if (!nk)
			return -ENOMEM;
		cl->key = nk;
		cl->key_cap = len;
	}
	k = cl->key;
	if (host) {
		memcpy(k, &host, sizeof(host));
		k += sizeof(host);
	}
	for (i = 0; i < n; i++) {
		memcpy(k, &f[i].id, sizeof(void *));
		memcpy(k + sizeof(void *), &f[i].addr, sizeof(u64));
		k += sizeof(void *) + sizeof(u64);
	}
	hv = ebs_hash_words(cl->key, len);
	HASH_FIND_BYHASHVALUE(hh, s->hash, cl->key, len, hv, e);
	if (!e) {
		struct cframe *copy = arena_alloc(s, n * sizeof(*copy));

		e = copy ? arena_alloc(s, sizeof(*e) + len) : NULL;
		if (!e || ebs_grow((void **)&s->v, &s->cap, s->n, sizeof(*s->v), 64))
			return -ENOMEM;
		memcpy(copy, f, n * sizeof(*copy));
		memcpy(e->key, cl->key, len);
		e->key_len = len;
		e->idx = s->n;
		HASH_ADD_BYHASHVALUE(hh, s->hash, key, len, hv, e);
		if (!e->hh.tbl)
			return -ENOMEM;
		st = &s->v[s->n++];
		memset(st, 0, sizeof(*st));
		st->frames = copy;
		st->n = n;
		st->flags = flags;
		st->host = s->rs.in[r->input].has_host ? s->rs.in[r->input].host : NULL;
	}
	st = &s->v[e->idx];
	st->count++;
	st->period += smp->period;
	s->samples++;
	s->period += smp->period;
	return 0;
}

static int collect_one(void *ctx, const struct resolved *r)
{
	struct collect *cl = ctx;
	const struct cframe *f;
	unsigned int n, flags;
	int e;

	if (cl->event >= 0 && (int)r->event != cl->event)
		return 0;
	e = chainer__build(cl->s->chains, r, &f, &n, &flags);
	return e ? e : add_stack(cl, r, f, n, flags);
}

int stacks_collect(const struct view_opts *v, bool lines, struct stacks *out, struct ebs_error *err)
{
	struct symbolize_opts so = {0};
	struct collect cl = {.s = out, .event = -1};
	const struct ebs_event_info *info;
	int e;

	memset(out, 0, sizeof(*out));
	out->no_inline = v->no_inline;
	session__symbolize_opts(&so, v);
	so.no_dwarf = v->no_inline && !v->filter.funcs;
	so.no_lines = !lines;
	e = session__open_view(&out->rs, v, &so, err);
	if (e)
		return e;
	cl.event = out->rs.event >= 0 ? out->rs.event : 0;
	info = session__event(&out->rs, (unsigned int)cl.event);
	out->event = info->used;
	out->clock = count_event_is_clock(info->rec->type, info->rec->config, info->rec->config1);
	out->call_graph = session__call_graph(&out->rs);
	out->nhosts = out->rs.nhosts;
	out->chains = chainer__new(&out->rs, out->call_graph, v->no_inline);
	if (!out->chains)
		return ebs_error__set(err, ENOMEM, "out of memory");
	e = session__each(&out->rs, collect_one, &cl, err);
	free(cl.key);
	return e;
}

void stacks_free(struct stacks *s)
{
	struct stack_chunk *c, *next;

	HASH_CLEAR(hh, s->hash); /* its entries are in the arena */
	for (c = s->arena; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s->v);
	chainer__free(s->chains);
	if (s->rs.d)
		session__close(&s->rs);
	memset(s, 0, sizeof(*s));
}
