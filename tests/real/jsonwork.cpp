// SPDX-License-Identifier: MIT
/*
 * jsonwork.cpp - a driver of nlohmann/json (Debian's nlohmann-json3-dev),
 * the C++ program of tests/integration/cxx.sh: it builds a JSON document
 * of objects, arrays, strings and numbers, then dumps it, parses the text
 * back, walks the tree and destroys it, ROUNDS times (argument 1, default
 * 200).  Compiled -O2 -g at test time, its profile is one of real
 * template code: std::map's _Rb_tree methods, basic_json's lexer and
 * parser, json_value::destroy, std::__cxx11::basic_string.
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

using nlohmann::json;

static json make_doc(int n)
{
	json doc = json::object();

	for (int i = 0; i < n; i++) {
		json item = {{"id", i},
			     {"name", "item-" + std::to_string(i)},
			     {"price", i * 1.25},
			     {"tags", {"a", "b", std::to_string(i % 7)}},
			     {"nested", {{"x", i}, {"y", -i}, {"ok", i % 2 == 0}}}};
		doc["items"].push_back(item);
		doc["index"][std::to_string(i)] = i;
	}
	return doc;
}

/* The numbers of the tree, summed, so that nothing is optimised away. */
static double walk(const json &j)
{
	double sum = 0;

	if (j.is_number())
		return j.get<double>();
	if (j.is_string())
		return (double)j.get_ref<const std::string &>().size();
	if (j.is_structured())
		for (const auto &el : j)
			sum += walk(el);
	return sum;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	double sum = 0;
	size_t bytes = 0;

	for (int r = 0; r < rounds; r++) {
		json doc = make_doc(200);
		std::string text = doc.dump();
		json back = json::parse(text);

		bytes += text.size();
		sum += walk(back);
	}
	printf("%zu bytes, sum %.0f\n", bytes, sum);
	return 0;
}
