// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * librevocable for C++: <revocable.h> works unchanged from C++11 on; this
 * header adds a scope guard over one access.
 *
 *	librevocable::access<struct foo> foo(ref);
 *	if (!foo)
 *		return -ENODEV;
 *	return foo->reg;
 *
 * The access ends when the guard goes out of scope, in the thread that
 * took it; the guard can be neither copied nor moved.
 */
#ifndef REVOCABLE_HPP
#define REVOCABLE_HPP

#include <revocable.h>

namespace librevocable {

template <typename T>
class access {
public:
	/* @rp: a provider the caller keeps alive, or nullptr (no resource). */
	explicit access(struct revocable_provider *rp) noexcept
		: res_(static_cast<T *>(revocable_access(rp, &rev_)))
	{
	}

	~access()
	{
		revocable_withdraw_access(&rev_);
	}

	access(const access &) = delete;
	access &operator=(const access &) = delete;

	/* The resource, or nullptr when it has been revoked. */
	T *get() const noexcept { return res_; }
	T *operator->() const noexcept { return res_; }
	T &operator*() const noexcept { return *res_; }
	explicit operator bool() const noexcept { return res_ != nullptr; }

private:
	struct revocable rev_;
	T *res_;
};

} /* namespace librevocable */

#endif /* REVOCABLE_HPP */
