// SPDX-License-Identifier: MIT
/*
 * test-json.c - the JSON writer (util/json.h): commas placed by nesting,
 * strings escaped, numbers as formatted, NULL and non-finite as null,
 * misuse (unbalanced, a key outside an object, too deep) reported.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "util/json.h"
#include "test.h"

/* Run fn on a writer into memory; its text (without the final newline) and end's status. */
static bool script_mode; /* written() begins with ebs_json__begin_script */

static char *written(void (*fn)(struct ebs_json *), int *status)
{
	static char out[4096];
	char *buf = NULL;
	size_t len = 0;
	struct ebs_json j;
	FILE *f = open_memstream(&buf, &len);

	if (script_mode)
		ebs_json__begin_script(&j, f);
	else
		ebs_json__begin(&j, f);
	fn(&j);
	*status = ebs_json__end(&j);
	fclose(f);
	ebs_strlcpy(out, buf ? buf : "", sizeof(out));
	free(buf);
	len = strlen(out);
	if (len && out[len - 1] == '\n')
		out[len - 1] = '\0';
	return out;
}

static void nested(struct ebs_json *j)
{
	ebs_json__obj(j);
	ebs_json__key_null(j, "event");
	ebs_json__key_u64(j, "samples", 18446744073709551615ull);
	ebs_json__key(j, "rows");
	ebs_json__arr(j);
	ebs_json__obj(j);
	ebs_json__key_str(j, "function", "main");
	ebs_json__key(j, "ci95");
	ebs_json__arr(j);
	ebs_json__num(j, "%.4f", 1.0);
	ebs_json__num(j, "%.4f", 2.5);
	ebs_json__arr_end(j);
	ebs_json__obj_end(j);
	ebs_json__obj(j);
	ebs_json__obj_end(j);
	ebs_json__arr(j);
	ebs_json__arr_end(j);
	ebs_json__arr_end(j);
	ebs_json__key_bool(j, "approximate", true);
	ebs_json__key_bool(j, "met", false);
	ebs_json__obj_end(j);
}

static void strings(struct ebs_json *j)
{
	ebs_json__arr(j);
	ebs_json__str(j, "q\"b\\s/\x01\n\x1f\x7f\xc3\xa9");
	ebs_json__str(j, "c1 \xc2\x9b raw \x9b bad \xff\xe2\x82 nbsp \xc2\xa0 euro \xe2\x82\xac");
	ebs_json__str(j, NULL);
	ebs_json__str(j, "");
	ebs_json__arr_end(j);
}

/* What could end a <script> element or open markup in it, in a key and a value. */
static void hostile(struct ebs_json *j)
{
	ebs_json__obj(j);
	ebs_json__key_str(j, "</script>",
			  "</script><script>alert(1)</script><!--&x\xe2\x80\xa8\xe2\x80\xa9");
	ebs_json__obj_end(j);
}

static void numbers(struct ebs_json *j)
{
	ebs_json__arr(j);
	ebs_json__num(j, "%.0f", 12345.6);
	ebs_json__num(j, "%.6g", 0.000123456789);
	ebs_json__num(j, "%.4f", NAN);
	ebs_json__num(j, "%.4f", INFINITY);
	ebs_json__u64(j, 0);
	ebs_json__u64(j, 1234567890);
	ebs_json__s64(j, -1);
	ebs_json__s64(j, 0);
	ebs_json__s64(j, INT64_MIN);
	ebs_json__s64(j, INT64_MAX);
	ebs_json__null(j);
	ebs_json__arr_end(j);
}

static void unclosed(struct ebs_json *j)
{
	ebs_json__obj(j);
	ebs_json__key_u64(j, "a", 1);
}

static void overclosed(struct ebs_json *j)
{
	ebs_json__arr(j);
	ebs_json__arr_end(j);
	ebs_json__arr_end(j);
}

static void key_in_array(struct ebs_json *j)
{
	ebs_json__arr(j);
	ebs_json__key(j, "a");
	ebs_json__u64(j, 1);
	ebs_json__arr_end(j);
}

static void mismatched(struct ebs_json *j)
{
	ebs_json__obj(j);
	ebs_json__arr_end(j);
}

static void dangling_key(struct ebs_json *j)
{
	ebs_json__obj(j);
	ebs_json__key(j, "a");
	ebs_json__obj_end(j);
}

static void too_deep(struct ebs_json *j)
{
	int i;

	for (i = 0; i < EBS_JSON_DEPTH + 1; i++)
		ebs_json__arr(j);
	for (i = 0; i < EBS_JSON_DEPTH + 1; i++)
		ebs_json__arr_end(j);
}

static void deepest(struct ebs_json *j)
{
	int i;

	for (i = 0; i < EBS_JSON_DEPTH; i++) {
		ebs_json__arr(j);
		ebs_json__u64(j, (u64)i % 10);
	}
	for (i = 0; i < EBS_JSON_DEPTH; i++)
		ebs_json__arr_end(j);
}

/* The writer: nesting, escapes, numbers, misuse refused. */
static void test_writer(void)
{
	char want[1024];
	int st, i;

	TEST_STREQ("json: nested commas", written(nested, &st),
		   "{\"event\":null,\"samples\":18446744073709551615,\"rows\":[{\"function\":"
		   "\"main\",\"ci95\":[1.0000,2.5000]},{},[]],\"approximate\":true,\"met\":false}");
	TEST_EQ("json: balanced", st, 0);
	TEST_STREQ(
		"json: escapes", written(strings, &st),
		"[\"q\\\"b\\\\s/\\u0001\\u000a\\u001f\\u007f\xc3\xa9\","
		"\"c1 \\u009b raw \\ufffd bad \\ufffd\\ufffd\\ufffd nbsp \xc2\xa0 euro \xe2\x82\xac\","
		"null,\"\"]");
	TEST_STREQ("json: numbers, non-finite as null", written(numbers, &st),
		   "[12346,0.000123457,null,null,0,1234567890,-1,0,-9223372036854775808,"
		   "9223372036854775807,null]");
	written(unclosed, &st);
	TEST_EQ("json: unclosed is misuse", st, -EINVAL);
	written(overclosed, &st);
	TEST_EQ("json: closed twice is misuse", st, -EINVAL);
	written(key_in_array, &st);
	TEST_EQ("json: a key in an array is misuse", st, -EINVAL);
	written(mismatched, &st);
	TEST_EQ("json: { closed by ] is misuse", st, -EINVAL);
	written(dangling_key, &st);
	TEST_EQ("json: a key without a value is misuse", st, -EINVAL);
	written(too_deep, &st);
	TEST_EQ("json: deeper than EBS_JSON_DEPTH is misuse", st, -EINVAL);
	want[0] = '\0';
	for (i = 0; i < EBS_JSON_DEPTH; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s[%d", i ? "," : "",
			 i % 10);
	for (i = 0; i < EBS_JSON_DEPTH; i++)
		strcat(want, "]");
	TEST_STREQ("json: EBS_JSON_DEPTH levels, a comma at each", written(deepest, &st), want);
	TEST_EQ("json: EBS_JSON_DEPTH levels balanced", st, 0);
	/* inside <script>: < > & U+2028 U+2029 escaped too; plain JSON leaves them */
	TEST_STREQ(
		"json: plain mode keeps < > &", written(hostile, &st),
		"{\"</script>\":\"</script><script>alert(1)</script><!--&x\xe2\x80\xa8\xe2\x80\xa9\"}");
	script_mode = true;
	TEST_STREQ("json: script mode escapes < > & U+2028 U+2029, keys too", written(hostile, &st),
		   "{\"\\u003c/script\\u003e\":\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"
		   "\\u003c/script\\u003e\\u003c!--\\u0026x\\u2028\\u2029\"}");
	TEST_STREQ(
		"json: script mode escapes as plain mode otherwise", written(strings, &st),
		"[\"q\\\"b\\\\s/\\u0001\\u000a\\u001f\\u007f\xc3\xa9\","
		"\"c1 \\u009b raw \\ufffd bad \\ufffd\\ufffd\\ufffd nbsp \xc2\xa0 euro \xe2\x82\xac\","
		"null,\"\"]");
	script_mode = false;
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_writer))
