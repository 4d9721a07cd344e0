/* SPDX-License-Identifier: MIT */
/*
 * json.h - the one JSON writer every --json uses: objects, arrays, keys
 * and values, with the commas placed and strings escaped here, never by
 * the caller.  Output is compact (no spaces), as the documented schemas
 * show it.  No allocation; nesting up to EBS_JSON_DEPTH levels.
 *
 *	struct ebs_json j;
 *
 *	ebs_json__begin(&j, stdout);
 *	ebs_json__obj(&j);
 *	ebs_json__key_u64(&j, "samples", 12);
 *	ebs_json__key(&j, "ci95");
 *	ebs_json__arr(&j);
 *	ebs_json__num(&j, "%.4f", lo);
 *	ebs_json__num(&j, "%.4f", hi);
 *	ebs_json__arr_end(&j);
 *	ebs_json__obj_end(&j);		{"samples":12,"ci95":[1.0000,2.0000]}
 *	err = ebs_json__end(&j);	newline, flush errors, balance
 */
#ifndef EBS_JSON_H
#define EBS_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "util/util.h"

#define EBS_JSON_DEPTH 64

struct ebs_json {
	FILE *f;
	unsigned int depth; /* open objects and arrays */
	bool after_key;	    /* a key was written: its value comes next */
	u64 has_items;	    /* bit d: the container at depth d has an item */
	u64 arrays;	    /* bit d: the container at depth d is an array */
	bool misuse;	    /* unbalanced, mismatched, too deep, a key outside an object */
	bool script;	    /* strings safe inside an HTML <script> element (begin_script) */
};

void ebs_json__begin(struct ebs_json *j, FILE *f);
/*
 * The same, for JSON inside an HTML <script> element: strings (keys too)
 * also escape '<', '>', '&', U+2028 and U+2029 as \\uXXXX, so that no text
 * in them can close the element or start markup ("</script>", "<!--").
 */
void ebs_json__begin_script(struct ebs_json *j, FILE *f);
/* A newline after the top value; 0, or -EINVAL when misused (a bug). */
int ebs_json__end(struct ebs_json *j);

void ebs_json__obj(struct ebs_json *j);
void ebs_json__obj_end(struct ebs_json *j);
void ebs_json__arr(struct ebs_json *j);
void ebs_json__arr_end(struct ebs_json *j);
void ebs_json__key(struct ebs_json *j, const char *key);

/* Values.  A NULL string is null; a number that is not finite is null. */
void ebs_json__str(struct ebs_json *j, const char *s);
void ebs_json__u64(struct ebs_json *j, u64 v);
void ebs_json__s64(struct ebs_json *j, s64 v);
void ebs_json__num(struct ebs_json *j, const char *fmt, double v)
	__attribute__((format(printf, 2, 0)));
void ebs_json__bool(struct ebs_json *j, bool v);
void ebs_json__null(struct ebs_json *j);

/* A key and its value, the common case. */
void ebs_json__key_str(struct ebs_json *j, const char *key, const char *s);
void ebs_json__key_u64(struct ebs_json *j, const char *key, u64 v);
void ebs_json__key_num(struct ebs_json *j, const char *key, const char *fmt, double v)
	__attribute__((format(printf, 3, 0)));
void ebs_json__key_bool(struct ebs_json *j, const char *key, bool v);
void ebs_json__key_null(struct ebs_json *j, const char *key);

/*
 * s as a JSON string, quotes included: " and \ escaped, control characters
 * (C0, DEL, U+0080-U+009F) as \u00XX, bytes that are not UTF-8 as \ufffd.
 */
void ebs_json__write_string(FILE *f, const char *s);

#endif /* EBS_JSON_H */
