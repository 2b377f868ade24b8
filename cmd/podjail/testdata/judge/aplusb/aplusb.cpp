#include <cstdio>

// <cstdio>, not <iostream>: a static link of iostream takes the VM's
// emulation several times longer, and the tests judge the compiler, not
// the library.
int main() {
	long long a, b;
	if (std::scanf("%lld %lld", &a, &b) != 2)
		return 1;
	std::printf("%lld\n", a + b);
}
