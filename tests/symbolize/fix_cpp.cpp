// SPDX-License-Identifier: MIT
/*
 * fix_cpp.cpp - C++ symbolization fixture: namespaces, a class template
 * with inline and out-of-line members, a function template, a lambda, an
 * overloaded operator and a static member.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace ebs_fix {
namespace detail {
template <typename T> static inline T twice(T x)
{
	return x + x;
}
}

template <typename T> class Box {
public:
	explicit Box(T v) : v_(v) {}
	__attribute__((noinline)) T scaled(int k) const
	{
		return detail::twice(v_) * k;
	}
	T sum(const std::vector<T> &xs) const;
	static int count;
	Box operator+(const Box &o) const { return Box(v_ + o.v_); }
	T get() const { return v_; }

private:
	T v_;
};

template <typename T> int Box<T>::count = 0;

template <typename T> __attribute__((noinline)) T Box<T>::sum(const std::vector<T> &xs) const
{
	T s = v_;
	for (const T &x : xs)
		s += detail::twice(x);
	return s;
}

__attribute__((noinline)) long run(int n)
{
	Box<long> a(n), b(2 * n);
	Box<double> d(0.5 * n);
	std::vector<long> xs(static_cast<size_t>(n), 3);
	auto sq = [&](long v) { return v * v + a.get(); };

	return (a + b).scaled(3) + a.sum(xs) + static_cast<long>(d.scaled(2)) + sq(n);
}
} // namespace ebs_fix

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 7;

	std::printf("%ld\n", ebs_fix::run(n));
	return 0;
}
