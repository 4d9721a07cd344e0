// SPDX-License-Identifier: MIT
/*
 * test-names.c - report/names.c: C++ names shortened to a width and
 * names typed matched to functions, on names libstdc++ and nlohmann-json
 * give (as ebs report showed them for tests/real/jsonwork.cpp).
 *
 *   test_parse     the own name found past scopes, templates, return
 *                  types, operator<, operator(), operator new[],
 *                  (anonymous namespace), lambdas, clones
 *   test_fit       the order things are left out in, the own name kept,
 *                  never wider than asked, whole when it fits
 *   test_apart     a column of names never prints two alike: template
 *                  instances, overloads, callers that differ deep inside
 *   test_resolve   exact, then unqualified, then "::"-suffix, then part;
 *                  clones are one function; ambiguity counted
 *   test_items     --func lists split at commas outside brackets
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "test.h"

#define JSON                                                                                        \
	"nlohmann::json_abi_v3_11_2::basic_json<std::map, std::vector, std::__cxx11::basic_string<" \
	"char, std::char_traits<char>, std::allocator<char> >, bool, long, unsigned long, double, " \
	"std::allocator, nlohmann::json_abi_v3_11_2::adl_serializer, std::vector<unsigned char, "   \
	"std::allocator<unsigned char> > >"
#define STR	  "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
#define DESTROY	  JSON "::json_value::destroy(nlohmann::json_abi_v3_11_2::detail::value_t)"
#define INVARIANT JSON "::assert_invariant(bool) const"
#define RBTREE                                                                                     \
	"std::_Rb_tree<" STR ", std::pair<" STR " const, " JSON                                    \
	">, std::_Select1st<std::pair<" STR " const, " JSON                                        \
	"> >, std::less<void>, std::allocator<std::pair<" STR " const, " JSON "> > >"
#define RBTREE_INT                                                                                    \
	"std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> >, " \
	"std::less<int>, std::allocator<std::pair<int const, int> > >"

/* a v0-demangled Rust name with generic arguments after "::" (a turbofish) */
#define RUST_FN_DYN                                                                                \
	"&dyn core::ops::function::Fn<(), Output = i32> + core::marker::Sync + "                   \
	"core::panic::unwind_safe::RefUnwindSafe"
#define RUST_DYN_CATCH "std::panicking::catch_unwind::<i32, " RUST_FN_DYN ">"

static void own_is(const char *name, const char *want)
{
	char t[160];
	size_t a, b;

	names_unqualified(name, &a, &b);
	snprintf(t, sizeof(t), "parse: the own name of %.60s... is %s", name, want);
	if (b - a == strlen(want) && !strncmp(name + a, want, b - a))
		TEST_OK(t);
	else
		TEST_FAIL(t, "got '%.*s'", (int)(b - a), name + a);
}

static void test_parse(void)
{
	own_is(DESTROY, "destroy");
	own_is(STR "::push_back(char)", "push_back");
	own_is("main", "main");
	own_is("unlink_chunk.constprop.0", "unlink_chunk.constprop.0");
	own_is(INVARIANT " [clone .constprop.0]", "assert_invariant");
	own_is("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
	       "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int "
	       "const&)",
	       "_M_realloc_insert");
	own_is("bool std::operator< <char, std::char_traits<char>, std::allocator<char> >(" STR
	       " const&, " STR " const&)",
	       "operator<");
	own_is("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
	       "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char "
	       "const*)",
	       "operator<<");
	own_is("std::unique_ptr<int, std::default_delete<int> >::operator->() const", "operator->");
	own_is("operator new[](unsigned long)", "operator new[]");
	own_is("operator delete(void*, unsigned long)", "operator delete");
	own_is("std::less<void>::operator()<" STR ", char const*>(" STR " const&, char const*&&) "
	       "const",
	       "operator()");
	own_is("(anonymous namespace)::pool::allocate(unsigned long)", "allocate");
	own_is(JSON
	       "::basic_json(std::initializer_list<nlohmann::json_abi_v3_11_2::detail::json_ref<" JSON
	       "> >, bool, nlohmann::json_abi_v3_11_2::detail::value_t)::{lambda(nlohmann::"
	       "json_abi_v3_11_2::detail::json_ref<" JSON
	       "> const&)#1}::operator()(nlohmann::json_abi_v3_11_2::detail::json_ref<" JSON
	       "> const&) const",
	       "operator()");
	own_is("std::rt::lang_start::{{closure}}", "{{closure}}");
	own_is(RUST_DYN_CATCH, "catch_unwind");
	own_is("std::panicking::catch_unwind::do_call::<std::rt::lang_start_internal::{closure#0}, "
	       "isize>",
	       "do_call");
	own_is("core::ptr::drop_in_place::<alloc::vec::Vec<u8>>", "drop_in_place");
	/* Go: a receiver in brackets is no parameter list; the name is whole */
	own_is("sort.(*IntSlice).Less", "sort.(*IntSlice).Less");
	own_is("<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop", "drop");
	own_is("ns::cls::operator unsigned long() const", "operator unsigned long");
	own_is("decltype (({parm#1}->foo)()) f<a>(a*)", "f");
}

/* names_fit of name to width is want. */
static void fit_is(const char *what, const char *name, size_t width, const char *want)
{
	char out[8192], t[200];

	names_fit(out, sizeof(out), name, width, NULL);
	snprintf(t, sizeof(t), "fit: %s", what);
	TEST_STREQ(t, out, want);
}

static void test_fit(void)
{

	char out[8192], t[200];
	const char *const names[] = {
		DESTROY,
		INVARIANT " [clone .constprop.0]",
		INVARIANT " (inlined into " JSON "::~basic_json())",
		RBTREE "::_M_erase(std::_Rb_tree_node<std::pair<" STR " const, " JSON
		       "> >*) [clone .isra.0]",
		STR "::_M_data() const (inlined into " STR
		    "::_M_append(char const*, unsigned long))",
		"tcache_get (inlined into malloc)",
		"[unknown] libstdc++.so.6.0.30+0x1234",
		"f (inlined into g, h, +3 more)",
	};
	size_t i, w;

	fit_is("whole when it fits", "main", 4, "main");
	fit_is("Go: its receiver kept, the inlined-into part shortened first",
	       "sort.(*IntSlice).Less (and inlined into sort.(*IntSlice).Swap)", 40,
	       "sort.(*IntSlice).Less (and inlined)");
	fit_is("width 0 is no limit", DESTROY, 0, DESTROY);
	fit_is("templates first, the innermost and longest first", DESTROY, 290,
	       "nlohmann::json_abi_v3_11_2::basic_json<std::map, std::vector, std::__cxx11::basic_"
	       "string<...>, bool, long, unsigned long, double, std::allocator, nlohmann::json_abi_"
	       "v3_11_2::adl_serializer, std::vector<...> >::json_value::destroy(nlohmann::json_"
	       "abi_v3_11_2::detail::value_t)");
	fit_is("then all templates", DESTROY, 110,
	       "nlohmann::json_abi_v3_11_2::basic_json<...>::json_value::destroy(nlohmann::json_"
	       "abi_v3_11_2::detail::value_t)");
	fit_is("then the parameters", DESTROY, 80,
	       "nlohmann::json_abi_v3_11_2::basic_json<...>::json_value::destroy(...)");
	fit_is("then the scope", DESTROY, 40, "...::json_value::destroy(...)");
	fit_is("then the own name alone", DESTROY, 12, "destroy(...)");
	fit_is("a libstdc++ string's method", STR "::_M_data() const", 48,
	       "std::__cxx11::basic_string<...>::_M_data() const");
	fit_is("a libstdc++ string's method, its scope cut", STR "::_M_data() const", 47,
	       "...::basic_string<...>::_M_data() const");
	fit_is("the clone suffix after the parameters", names[1], 72,
	       "nlohmann::json_abi_v3_11_2::basic_json<...>::assert_invariant(...) const");
	fit_is("the inlined-into part: its templates and parameters", names[4], 111,
	       "std::__cxx11::basic_string<...>::_M_data() const (inlined into "
	       "std::__cxx11::basic_string<...>::_M_append(...))");
	fit_is("the inlined-into part: its own name", names[4], 110,
	       "std::__cxx11::basic_string<...>::_M_data() const (inlined into _M_append)");
	fit_is("the inlined-into part: a caller's own name", names[2], 99,
	       "nlohmann::json_abi_v3_11_2::basic_json<...>::assert_invariant(...) const (inlined "
	       "into ~basic_json)");
	fit_is("the inlined-into part: (inlined)", names[2], 98,
	       "nlohmann::json_abi_v3_11_2::basic_json<...>::assert_invariant(...) const (inlined)");
	fit_is("then the scope", names[2], 80,
	       "...::json_abi_v3_11_2::basic_json<...>::assert_invariant(...) const (inlined)");
	fit_is("a C name with its caller", names[5], 20, "tcache_get (inlined)");
	fit_is("a C name without its caller", names[5], 19, "tcache_get");
	fit_is("an unknown address is cut in the middle", names[6], 20, "[unkno...0.30+0x1234");
	fit_is("several callers: whole when they fit", names[7], 30, names[7]);
	fit_is("several callers: (inlined)", names[7], 24, "f (inlined)");
	/* never wider than asked, the own name kept down to its own length */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t a, b, own;
		char name[8192];
		const char *paren = strstr(names[i], " (inlined");

		snprintf(name, sizeof(name), "%.*s",
			 (int)(paren ? (size_t)(paren - names[i]) : strlen(names[i])), names[i]);
		names_unqualified(name, &a, &b);
		own = b - a;
		for (w = 5; w < strlen(names[i]) + 5; w++) {
			names_fit(out, sizeof(out), names[i], w, NULL);
			if (strlen(out) > w || (w >= own && w >= 12 && !strstr(out, "[unknown") &&
						!memmem(out, strlen(out), name + a, own)))
				break;
		}
		snprintf(t, sizeof(t), "fit: %.40s... at every width: no wider, its own name kept",
			 names[i]);
		if (w == strlen(names[i]) + 5)
			TEST_OK(t);
		else
			TEST_FAIL(t, "at %zu: '%s'", w, out);
	}
	snprintf(t, sizeof(t), "fit: the floor keeps the own name: %zu", names_floor(names[3]));
	TEST_CHECK(t,
		   names_floor(names[3]) == strlen("_M_erase(...)") || names_floor(names[3]) <= 40);
}

/* names_fit_column of the n names to width prints no two alike, each no wider. */
static void apart_is(const char *what, const char *const *names, size_t n, size_t width)
{
	char *cut[16], t[200];
	size_t i, j;
	bool ok = true;

	if (names_fit_column(cut, names, n, width)) {
		TEST_FAIL(what, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		if (strlen(cut[i]) > width)
			ok = false;
		for (j = 0; j < i; j++)
			if (!strcmp(cut[i], cut[j]) && strcmp(names[i], names[j]))
				ok = false;
	}
	snprintf(t, sizeof(t), "apart: %s, at %zu", what, width);
	if (ok)
		TEST_OK(t);
	else
		for (i = 0; i < n; i++)
			TEST_FAIL(t, "%zu: '%s'", i, cut[i]);
	for (i = 0; i < n; i++)
		free(cut[i]);
}

static void test_apart(void)
{
	const char *const trees[] = {
		RBTREE "::_M_erase(std::_Rb_tree_node<std::pair<" STR " const, " JSON "> >*)",
		RBTREE_INT "::_M_erase(std::_Rb_tree_node<std::pair<int const, int> >*)",
		RBTREE "::_M_begin()",
		RBTREE_INT "::_M_begin()",
	};
	const char *const ctors[] = {
		JSON "::basic_json(" JSON "&&)",
		JSON "::basic_json(" JSON " const&)",
		JSON "::basic_json(nlohmann::json_abi_v3_11_2::detail::value_t)",
		JSON "::basic_json(std::nullptr_t)",
	};
	const char *const inl[] = {
		INVARIANT " (inlined into " JSON "::~basic_json())",
		INVARIANT " (inlined into " JSON "::basic_json(" JSON "&&))",
		INVARIANT " (inlined into " JSON "::basic_json(" JSON " const&))",
		INVARIANT " [clone .constprop.0]",
		INVARIANT,
	};
	const char *const rust[] = {
		"std::panic::catch_unwind::<" RUST_FN_DYN ", i32>",
		"std::panic::catch_unwind::<std::rt::lang_start_internal::{closure#0}, isize>",
		RUST_DYN_CATCH,
		"std::panicking::catch_unwind::<isize, std::rt::lang_start_internal::{closure#0}>",
		"std::panicking::catch_unwind::do_call::<" RUST_FN_DYN ", i32>",
		"std::panicking::catch_unwind::do_call::<std::rt::lang_start_internal::{closure#0}, "
		"isize>",
	};
	size_t w;

	for (w = 40; w <= 160; w += 40) {
		char *cut[6];
		char t[120];
		bool own = true;

		apart_is("Rust's generic functions (turbofish)", rust, 6, w);
		if (names_fit_column(cut, rust, 6, w))
			continue;
		for (size_t i = 0; i < 6; i++) {
			const char *want = i < 4 ? "catch_unwind::<" : "do_call::<";

			const char *sp = strrchr(cut[i], ' ');

			if (!strstr(cut[i], want) ||
			    (sp && sp[1] == '#')) /* " #2": told apart by number */
				own = false;
			free(cut[i]);
		}
		snprintf(t, sizeof(t), "apart: Rust: each own name, then '::<', no #N, at %zu", w);
		TEST_CHECK(t, own);
	}
	for (w = 40; w <= 160; w += 40) {
		apart_is("two std::maps' _Rb_tree methods", trees, 4, w);
		apart_is("basic_json's constructors", ctors, 4, w);
		apart_is("assert_invariant, inlined into its overloads", inl, 5, w);
	}
	{
		char *cut[4];

		names_fit_column(cut, trees, 4, 40);
		TEST_CHECK("apart: the own names stay",
			   strstr(cut[0], "_M_erase") && strstr(cut[1], "_M_erase") &&
				   strstr(cut[2], "_M_begin") && strstr(cut[3], "_M_begin"));
		for (w = 0; w < 4; w++)
			free(cut[w]);
	}
}

static size_t resolve(const char *want, struct name_cand *c, size_t n, enum name_tier tier,
		      size_t funcs, const char *what)
{
	size_t f, i, m = 0;
	enum name_tier got = names_resolve(want, strlen(want), c, n, &f);
	char t[200];

	for (i = 0; i < n; i++)
		m += c[i].match;
	snprintf(t, sizeof(t), "resolve: %s ('%s')", what, want);
	if (got == tier && f == funcs)
		TEST_OK(t);
	else
		TEST_FAIL(t, "tier %d, %zu functions; want tier %d, %zu", got, f, tier, funcs);
	return m;
}

static void test_resolve(void)
{
	struct name_cand c[] = {
		{.name = DESTROY},
		{.name = "void std::__new_allocator<" STR ">::destroy<" STR ">(" STR "*)"},
		{.name = INVARIANT},
		{.name = INVARIANT " [clone .constprop.0]"},
		{.name = "main"},
		{.name = "unlink_chunk.constprop.0"},
		{.name = "unlink_chunk"},
		{.name = RBTREE "::_M_erase(std::_Rb_tree_node<std::pair<" STR " const, " JSON
				">>*)"},
		{.name = RBTREE_INT "::_M_erase(std::_Rb_tree_node<std::pair<int const, int> >*)"},
		{.name = "walk(nlohmann::json_abi_v3_11_2::basic_json<...> const&)"},
	};
	size_t n = sizeof(c) / sizeof(c[0]);
	struct name_query q = {.want = "json_value::destroy"};

	resolve("main", c, n, NAME_EXACT, 1, "the exact name");
	TEST_EQ("resolve: the exact name with clones matches both",
		resolve("unlink_chunk", c, n, NAME_EXACT, 1, "a C function and its clone"), 2);
	resolve("destroy", c, n, NAME_UNQUALIFIED, 2, "two functions named destroy: ambiguous");
	resolve("json_value::destroy", c, n, NAME_SUFFIX, 1, "a ::-suffix");
	resolve("basic_json::json_value::destroy", c, n, NAME_SUFFIX, 1,
		"a ::-suffix without template arguments");
	resolve("std::__new_allocator::destroy", c, n, NAME_SUFFIX, 1,
		"the other destroy, by its class");
	TEST_EQ("resolve: a function and its clone are one",
		resolve("assert_invariant", c, n, NAME_UNQUALIFIED, 1, "own name, with a clone"),
		2);
	resolve("_M_erase", c, n, NAME_UNQUALIFIED, 2, "two maps' _M_erase: ambiguous");
	resolve("walk", c, n, NAME_EXACT, 1, "a function without its parameters");
	resolve("lk(nlohmann", c, n, NAME_SUBSTRING, 1, "a part of a name");
	resolve("no_such_function", c, n, NAME_NONE, 0, "nothing");
	/* the query matches the names resolved, and only those */
	q.len = strlen(q.want);
	TEST_EQ("resolve: the query resolves",
		name_query__resolve(&q, c, n, 100, NULL, 0, "x.data", &(struct ebs_error){0}), 0);
	TEST_CHECK("resolve: the query matches json_value::destroy",
		   name_query__match(&q, DESTROY) && !name_query__match(&q, c[1].name));
	name_query__free(&q);
	/* destructors accept NULL (names.h says so); these did not */
	name_query__free(NULL);
	name_tally__free(NULL);
	TEST_OK("names: name_query__free(NULL), name_tally__free(NULL)");
	{
		struct ebs_error err = {0};

		q = (struct name_query){.want = "destroy", .len = 7};
		TEST_EQ("resolve: an ambiguous name is -EINVAL",
			name_query__resolve(&q, c, n, 100, NULL, 0, "x.data", &err), -EINVAL);
		TEST_CHECK("resolve: ...saying how many, in one line",
			   strstr(err.msg, "'destroy' names 2 functions") &&
				   !strchr(err.msg, '\n'));
		name_query__free(&q);
	}
}

static void test_items(void)
{
	const char *l = "std::map<int, long>::find(int const&) const,main,f(int, int)";

	TEST_EQ("items: a template's commas stay", names_item(l),
		strlen("std::map<int, long>::find(int const&) const"));
	TEST_EQ("items: main", names_item("main,f(int, int)"), 4);
	TEST_EQ("items: parameters' commas stay", names_item("f(int, int)"), 11);
	TEST_EQ("items: operator, and operator<", names_item("operator<,x"), 9);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_parse), TEST_CASE(test_fit), TEST_CASE(test_apart),
	  TEST_CASE(test_resolve), TEST_CASE(test_items))
