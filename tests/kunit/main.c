// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Runs the kernel's KUnit suites linked into this program over the compat
 * layer and prints KTAP; exits 1 if a case failed.
 *
 * usage: kunit [SUITE_GLOB[.CASE_GLOB]]   (as the kernel's kunit.filter_glob)
 */
#include <stdio.h>

#include <kunit/test.h>
#include <linux/revocable.h>

int main(int argc, char **argv)
{
	int ret;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [SUITE_GLOB[.CASE_GLOB]]\n", argv[0]);
		return 2;
	}
	ret = kunit_run_all_tests(argc > 1 ? argv[1] : NULL);
	/*
	 * Providers are freed a grace period after their last reference:
	 * let those frees run, so that leak checkers see none at exit.
	 */
	revocable_domain_barrier(revocable_default_domain());
	return ret;
}
