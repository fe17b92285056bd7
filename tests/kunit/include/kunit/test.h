/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <kunit/test.h>: enough of KUnit to build a
 * kernel test file unchanged over the compat layer and run it as a
 * program, the way tools/testing/radix-tree runs the kernel's xarray
 * tests.  tests/kunit/shim.c runs every suite that kunit_test_suite()
 * registered and prints KTAP as the kernel does.
 *
 * As in the kernel, each case runs in a thread of its own: a failed
 * KUNIT_ASSERT_*() or a kunit_skip() ends that thread, which KUNIT_EXPECT_*()
 * does not.  Memory from kunit_kmalloc() and friends and actions from
 * kunit_add_action() are released when the case ends, after suite->exit.
 */
#ifndef _COMPAT_KUNIT_TEST_H
#define _COMPAT_KUNIT_TEST_H

#include <pthread.h>
#include <linux/compiler.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>

#define KUNIT_STATUS_COMMENT_SIZE	256

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

enum kunit_assert_type {
	KUNIT_ASSERTION,
	KUNIT_EXPECTATION,
};


/**
 * struct kunit - the state of one running test case
 * @priv: for the suite's init, exit and cases to share
 * @name: the case's name
 * @status: KUNIT_SUCCESS until a check fails or the case skips
 * @status_comment: the reason given to kunit_skip()
 *
 * The remaining members belong to tests/kunit/shim.c.
 */
struct kunit {
	void *priv;
	const char *name;
	enum kunit_status status;
	char status_comment[KUNIT_STATUS_COMMENT_SIZE];
	struct compat_actions actions;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const char *module_name;
	enum kunit_status status;
};

#define KUNIT_CASE(test_name)						\
	{ .run_case = test_name, .name = #test_name,			\
	  .module_name = KBUILD_MODNAME }
/* No attributes here: a slow case is just a case. */
#define KUNIT_CASE_SLOW(test_name)	KUNIT_CASE(test_name)

struct kunit_suite {
	const char name[256];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
	char status_comment[KUNIT_STATUS_COMMENT_SIZE];
	int suite_init_err;
};

/*
 * As in the kernel, registration puts a pointer to each suite into a
 * section; the runner walks it from __start_ to __stop_kunit_test_suites.
 */
#define kunit_test_suites(__suites...)					\
	static struct kunit_suite *__UNIQUE_ID(kunit_suites)[]		\
	__used __section("kunit_test_suites") =				\
		{ __suites }
#define kunit_test_suite(suite)	kunit_test_suites(&(suite))

/*
 * Userspace only: the number of warnings so far (the kernel has no such
 * count), for suites that check that a misuse warned.
 */
#define kunit_warn_count()	compat_warn_count()

/* Runs the registered suites whose "suite.case" names match @glob. */
int kunit_run_all_tests(const char *glob);

/* ----- messages ---------------------------------------------------------- */

void kunit_log_line(const char *fmt, ...) __printf(1, 2);

/* Every level goes to the KTAP stream, as a diagnostic of the case. */
#define kunit_info(test, fmt, ...)					\
	kunit_log_line("    # %s: " fmt, (test)->name, ##__VA_ARGS__)
#define kunit_warn(test, fmt, ...)	kunit_info(test, fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...)	kunit_info(test, fmt, ##__VA_ARGS__)

/* ----- results ----------------------------------------------------------- */

/* Ends the calling thread: the case, or the thread that asserted. */
void __noreturn __kunit_abort(struct kunit *test);

static inline void kunit_set_failure(struct kunit *test)
{
	WRITE_ONCE(test->status, KUNIT_FAILURE);
}

#define kunit_mark_skipped(test, fmt, ...)				\
	do {								\
		WRITE_ONCE((test)->status, KUNIT_SKIPPED);		\
		snprintf((test)->status_comment,			\
			 KUNIT_STATUS_COMMENT_SIZE, fmt, ##__VA_ARGS__); \
	} while (0)

#define kunit_skip(test, fmt, ...)					\
	do {								\
		kunit_mark_skipped((test), fmt, ##__VA_ARGS__);		\
		__kunit_abort(test);					\
	} while (0)

/* Each reports a failed check; the macros then abort if it was an ASSERT. */
void __kunit_fail_msg(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *fmt, ...)
	__printf(5, 6);
void __kunit_fail_bool(struct kunit *test, enum kunit_assert_type type,
		       const char *file, int line, const char *expr,
		       bool expected, const char *fmt, ...) __printf(7, 8);
void __kunit_fail_int(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, long long lval,
		      long long rval, const char *fmt, ...) __printf(10, 11);
void __kunit_fail_ptr(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, const void *lval,
		      const void *rval, const char *fmt, ...) __printf(10, 11);
void __kunit_fail_str(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, const char *lval,
		      const char *rval, const char *fmt, ...) __printf(10, 11);
void __kunit_fail_mem(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, size_t size,
		      const char *fmt, ...) __printf(9, 10);
void __kunit_fail_not_err_or_null(struct kunit *test,
				  enum kunit_assert_type type,
				  const char *file, int line, const char *expr,
				  const void *val, const char *fmt, ...)
	__printf(7, 8);

#define __KUNIT_END_CHECK(test, type)					\
	do {								\
		if ((type) == KUNIT_ASSERTION)				\
			__kunit_abort(test);				\
	} while (0)

#define KUNIT_FAIL_ASSERTION(test, type, fmt, ...)			\
	do {								\
		__kunit_fail_msg(test, type, __FILE__, __LINE__,	\
				 fmt, ##__VA_ARGS__);			\
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

#define KUNIT_FAIL(test, fmt, ...)					\
	KUNIT_FAIL_ASSERTION(test, KUNIT_EXPECTATION, fmt, ##__VA_ARGS__)

#define KUNIT_BOOL_ASSERTION(test, type, cond, expected, fmt, ...)	\
	do {								\
		const bool __kunit_c = !!(cond);			\
									\
		if (likely(__kunit_c == (expected)))			\
			break;						\
		__kunit_fail_bool(test, type, __FILE__, __LINE__, #cond, \
				  expected, fmt, ##__VA_ARGS__);	\
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

#define KUNIT_BINARY_INT_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const typeof(left) __kunit_l = (left);			\
		const typeof(right) __kunit_r = (right);		\
									\
		if (likely(__kunit_l op __kunit_r))			\
			break;						\
		__kunit_fail_int(test, type, __FILE__, __LINE__, #left,	\
				 #op, #right, (long long)__kunit_l,	\
				 (long long)__kunit_r, fmt, ##__VA_ARGS__); \
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

#define KUNIT_BINARY_PTR_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const typeof(left) __kunit_l = (left);			\
		const typeof(right) __kunit_r = (right);		\
									\
		if (likely(__kunit_l op __kunit_r))			\
			break;						\
		__kunit_fail_ptr(test, type, __FILE__, __LINE__, #left,	\
				 #op, #right, __kunit_l, __kunit_r,	\
				 fmt, ##__VA_ARGS__);			\
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

#define KUNIT_BINARY_STR_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const char *__kunit_l = (left);				\
		const char *__kunit_r = (right);			\
									\
		if (likely(strcmp(__kunit_l, __kunit_r) op 0))		\
			break;						\
		__kunit_fail_str(test, type, __FILE__, __LINE__, #left,	\
				 #op, #right, __kunit_l, __kunit_r,	\
				 fmt, ##__VA_ARGS__);			\
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

#define KUNIT_MEM_ASSERTION(test, type, left, op, right, size, fmt, ...) \
	do {								\
		if (likely(memcmp((left), (right), (size)) op 0))	\
			break;						\
		__kunit_fail_mem(test, type, __FILE__, __LINE__, #left,	\
				 #op, #right, (size), fmt, ##__VA_ARGS__); \
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

#define KUNIT_NOT_ERR_OR_NULL_ASSERTION(test, type, ptr, fmt, ...)	\
	do {								\
		const typeof(ptr) __kunit_p = (ptr);			\
									\
		if (!IS_ERR_OR_NULL(__kunit_p))				\
			break;						\
		__kunit_fail_not_err_or_null(test, type, __FILE__,	\
					     __LINE__, #ptr, __kunit_p,	\
					     fmt, ##__VA_ARGS__);	\
		__KUNIT_END_CHECK(test, type);				\
	} while (0)

/*
 * The EXPECT and ASSERT families differ in the type only; _T is
 * KUNIT_EXPECTATION or KUNIT_ASSERTION.
 */
#define __KUNIT_TRUE(t, _T, c, f, ...)					\
	KUNIT_BOOL_ASSERTION(t, _T, c, true, f, ##__VA_ARGS__)
#define __KUNIT_FALSE(t, _T, c, f, ...)					\
	KUNIT_BOOL_ASSERTION(t, _T, c, false, f, ##__VA_ARGS__)
#define __KUNIT_INT(t, _T, l, op, r, f, ...)				\
	KUNIT_BINARY_INT_ASSERTION(t, _T, l, op, r, f, ##__VA_ARGS__)
#define __KUNIT_PTR(t, _T, l, op, r, f, ...)				\
	KUNIT_BINARY_PTR_ASSERTION(t, _T, l, op, r, f, ##__VA_ARGS__)
#define __KUNIT_STR(t, _T, l, op, r, f, ...)				\
	KUNIT_BINARY_STR_ASSERTION(t, _T, l, op, r, f, ##__VA_ARGS__)
#define __KUNIT_MEM(t, _T, l, op, r, n, f, ...)				\
	KUNIT_MEM_ASSERTION(t, _T, l, op, r, n, f, ##__VA_ARGS__)

#define KUNIT_EXPECT_TRUE_MSG(t, c, f, ...)				\
	__KUNIT_TRUE(t, KUNIT_EXPECTATION, c, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, f, ...)				\
	__KUNIT_FALSE(t, KUNIT_EXPECTATION, c, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_EQ_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_EXPECTATION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_EXPECTATION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_EXPECTATION, l, <, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_EXPECTATION, l, <=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_EXPECTATION, l, >, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_EXPECTATION, l, >=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ_MSG(t, l, r, f, ...)			\
	__KUNIT_PTR(t, KUNIT_EXPECTATION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_NE_MSG(t, l, r, f, ...)			\
	__KUNIT_PTR(t, KUNIT_EXPECTATION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_NULL_MSG(t, p, f, ...)				\
	__KUNIT_PTR(t, KUNIT_EXPECTATION, p, ==, NULL, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL_MSG(t, p, f, ...)				\
	__KUNIT_PTR(t, KUNIT_EXPECTATION, p, !=, NULL, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ_MSG(t, l, r, f, ...)				\
	__KUNIT_STR(t, KUNIT_EXPECTATION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_STRNEQ_MSG(t, l, r, f, ...)			\
	__KUNIT_STR(t, KUNIT_EXPECTATION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_MEMEQ_MSG(t, l, r, n, f, ...)			\
	__KUNIT_MEM(t, KUNIT_EXPECTATION, l, ==, r, n, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_MEMNEQ_MSG(t, l, r, n, f, ...)			\
	__KUNIT_MEM(t, KUNIT_EXPECTATION, l, !=, r, n, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_ERR_OR_NULL_MSG(t, p, f, ...)			\
	KUNIT_NOT_ERR_OR_NULL_ASSERTION(t, KUNIT_EXPECTATION, p, f, ##__VA_ARGS__)

#define KUNIT_ASSERT_TRUE_MSG(t, c, f, ...)				\
	__KUNIT_TRUE(t, KUNIT_ASSERTION, c, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(t, c, f, ...)				\
	__KUNIT_FALSE(t, KUNIT_ASSERTION, c, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_ASSERTION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_ASSERTION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_ASSERTION, l, <, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_ASSERTION, l, <=, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_ASSERTION, l, >, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(t, l, r, f, ...)				\
	__KUNIT_INT(t, KUNIT_ASSERTION, l, >=, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_EQ_MSG(t, l, r, f, ...)			\
	__KUNIT_PTR(t, KUNIT_ASSERTION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_NE_MSG(t, l, r, f, ...)			\
	__KUNIT_PTR(t, KUNIT_ASSERTION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_NULL_MSG(t, p, f, ...)				\
	__KUNIT_PTR(t, KUNIT_ASSERTION, p, ==, NULL, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL_MSG(t, p, f, ...)				\
	__KUNIT_PTR(t, KUNIT_ASSERTION, p, !=, NULL, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_STREQ_MSG(t, l, r, f, ...)				\
	__KUNIT_STR(t, KUNIT_ASSERTION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_STRNEQ_MSG(t, l, r, f, ...)			\
	__KUNIT_STR(t, KUNIT_ASSERTION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_MEMEQ_MSG(t, l, r, n, f, ...)			\
	__KUNIT_MEM(t, KUNIT_ASSERTION, l, ==, r, n, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_MEMNEQ_MSG(t, l, r, n, f, ...)			\
	__KUNIT_MEM(t, KUNIT_ASSERTION, l, !=, r, n, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(t, p, f, ...)			\
	KUNIT_NOT_ERR_OR_NULL_ASSERTION(t, KUNIT_ASSERTION, p, f, ##__VA_ARGS__)

#define KUNIT_EXPECT_TRUE(t, c)						\
	KUNIT_EXPECT_TRUE_MSG(t, c, NULL)
#define KUNIT_EXPECT_FALSE(t, c)					\
	KUNIT_EXPECT_FALSE_MSG(t, c, NULL)
#define KUNIT_EXPECT_EQ(t, l, r)					\
	KUNIT_EXPECT_EQ_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_NE(t, l, r)					\
	KUNIT_EXPECT_NE_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_LT(t, l, r)					\
	KUNIT_EXPECT_LT_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_LE(t, l, r)					\
	KUNIT_EXPECT_LE_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_GT(t, l, r)					\
	KUNIT_EXPECT_GT_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_GE(t, l, r)					\
	KUNIT_EXPECT_GE_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_PTR_EQ(t, l, r)					\
	KUNIT_EXPECT_PTR_EQ_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_PTR_NE(t, l, r)					\
	KUNIT_EXPECT_PTR_NE_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_NULL(t, p)						\
	KUNIT_EXPECT_NULL_MSG(t, p, NULL)
#define KUNIT_EXPECT_NOT_NULL(t, p)					\
	KUNIT_EXPECT_NOT_NULL_MSG(t, p, NULL)
#define KUNIT_EXPECT_STREQ(t, l, r)					\
	KUNIT_EXPECT_STREQ_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_STRNEQ(t, l, r)					\
	KUNIT_EXPECT_STRNEQ_MSG(t, l, r, NULL)
#define KUNIT_EXPECT_MEMEQ(t, l, r, n)					\
	KUNIT_EXPECT_MEMEQ_MSG(t, l, r, n, NULL)
#define KUNIT_EXPECT_MEMNEQ(t, l, r, n)					\
	KUNIT_EXPECT_MEMNEQ_MSG(t, l, r, n, NULL)
#define KUNIT_EXPECT_NOT_ERR_OR_NULL(t, p)				\
	KUNIT_EXPECT_NOT_ERR_OR_NULL_MSG(t, p, NULL)

#define KUNIT_ASSERT_TRUE(t, c)						\
	KUNIT_ASSERT_TRUE_MSG(t, c, NULL)
#define KUNIT_ASSERT_FALSE(t, c)					\
	KUNIT_ASSERT_FALSE_MSG(t, c, NULL)
#define KUNIT_ASSERT_EQ(t, l, r)					\
	KUNIT_ASSERT_EQ_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_NE(t, l, r)					\
	KUNIT_ASSERT_NE_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_LT(t, l, r)					\
	KUNIT_ASSERT_LT_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_LE(t, l, r)					\
	KUNIT_ASSERT_LE_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_GT(t, l, r)					\
	KUNIT_ASSERT_GT_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_GE(t, l, r)					\
	KUNIT_ASSERT_GE_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_PTR_EQ(t, l, r)					\
	KUNIT_ASSERT_PTR_EQ_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_PTR_NE(t, l, r)					\
	KUNIT_ASSERT_PTR_NE_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_NULL(t, p)						\
	KUNIT_ASSERT_NULL_MSG(t, p, NULL)
#define KUNIT_ASSERT_NOT_NULL(t, p)					\
	KUNIT_ASSERT_NOT_NULL_MSG(t, p, NULL)
#define KUNIT_ASSERT_STREQ(t, l, r)					\
	KUNIT_ASSERT_STREQ_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_STRNEQ(t, l, r)					\
	KUNIT_ASSERT_STRNEQ_MSG(t, l, r, NULL)
#define KUNIT_ASSERT_MEMEQ(t, l, r, n)					\
	KUNIT_ASSERT_MEMEQ_MSG(t, l, r, n, NULL)
#define KUNIT_ASSERT_MEMNEQ(t, l, r, n)					\
	KUNIT_ASSERT_MEMNEQ_MSG(t, l, r, n, NULL)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(t, p)				\
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(t, p, NULL)

/* ----- resources --------------------------------------------------------- */

typedef void (kunit_action_t)(void *ctx);

/* Runs @action(@ctx) when the case ends, newest first; -ENOMEM if not. */
int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx);
/* As kunit_add_action(), but runs @action(@ctx) at once if it fails. */
int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action,
			      void *ctx);
/* Forgets the newest matching action, without running it. */
void kunit_remove_action(struct kunit *test, kunit_action_t *action,
			 void *ctx);
/* Forgets the newest matching action and runs it now. */
void kunit_release_action(struct kunit *test, kunit_action_t *action,
			  void *ctx);

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp);
void kunit_kfree(struct kunit *test, const void *ptr);

static inline void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc(test, size, gfp | __GFP_ZERO);
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	return kunit_kmalloc_array(test, n, size, gfp | __GFP_ZERO);
}

#endif
