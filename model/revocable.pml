/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A Promela model of librevocable's access/revoke protocol, checked with
 * spin (model/check.sh, meson test --suite model).
 *
 * What is modelled is the algorithm of lib/revocable.c over the userspace
 * SRCU of runtime/srcu.c: readers count srcu_read_lock()/unlock() per read
 * index in counters only they write; a grace period waits until the index
 * readers are not using is drained, flips the index, and waits until the
 * old one is drained, reading the unlock sum before the lock sum, one
 * reader's counter at a time.  A revoke clears the resource pointer, waits
 * one grace period, and the owner then frees the resource.  Another
 * updater runs further grace periods (revokes of other providers of the
 * same domain), serialised with the revoke by the grace-period lock, so
 * the index flips while readers are inside.
 *
 * Properties:
 *   safety (assertions): an access that obtained the resource never sees
 *     it freed; an access that began after the revoke completed gets NULL.
 *   liveness (ltl terminates): every revoke completes once the readers
 *     have withdrawn (readers do a bounded number of accesses; checked
 *     under weak fairness).
 *
 * spin's interleavings are sequentially consistent: the memory-ordering
 * half of the argument (membarrier() on the grace-period side, compiler
 * barriers on the read side) is not checked here; KCSAN, TSan and the
 * stress tests cover that ground.
 *
 * The index flip is there for forward progress against readers that keep
 * arriving; with a bounded number of accesses this model does not need it,
 * and dropping it breaks neither property here.
 *
 * Mutants, to show the checks can fail (spin -D...): BUG_NO_WAIT (the
 * owner frees without a grace period), BUG_LOCKS_FIRST (the lock sum is
 * read before the unlock sum), BUG_UNLOCK_WRONG_IDX (the unlock counts
 * under the index current at unlock time, as when upstream kept the index
 * in a handle that another access overwrote).
 */
#ifndef NR
#define NR	2	/* readers */
#endif
#ifndef NACC
#define NACC	2	/* accesses per reader */
#endif
#ifndef NGP
#define NGP	2	/* grace periods of other revokes in the domain */
#endif

byte idx;			/* srcu_idx & 1 */
byte lockc[2 * NR];		/* lock count of reader r, index i: [2r+i] */
byte unlockc[2 * NR];
bool published = true;		/* rp->res != NULL */
bool freed;			/* the owner freed the resource */
bool revoked;			/* revocable_revoke() returned */
bool gp_lock;			/* serialises grace periods */

/* The inlines use the caller's locals j, w, ul, lk and k. */

/* sum = every reader's unlock (unl) or lock count under index w */
inline add_up(sum, unl)
{
	sum = 0;
	k = 0;
	do
	:: k < NR ->
		sum = sum + (unl -> unlockc[2 * k + w] : lockc[2 * k + w]);
		k++
	:: else -> break
	od
}

inline sum_idx()
{
#ifdef BUG_LOCKS_FIRST
	add_up(lk, 0);
	add_up(ul, 1)
#else
	add_up(ul, 1);
	add_up(lk, 0)
#endif
}

/* Wait until no reader is inside a section counted under index w. */
inline wait_idx()
{
	do
	:: sum_idx();
	   if
	   :: ul == lk -> break
	   :: else -> skip
	   fi
	od
}

inline synchronize_srcu()
{
	atomic { !gp_lock -> gp_lock = true };
	j = idx;
	w = 1 - j;
	wait_idx();
	idx = 1 - j;
	w = j;
	wait_idx();
	gp_lock = false
}

proctype reader(byte r)
{
	byte n, i;
	bool late, got;

	do
	:: n < NACC ->
		late = revoked;			/* the revoke completed before */
		i = idx;			/* srcu_read_lock() */
		lockc[2 * r + i]++;
		got = published;		/* srcu_dereference(rp->res) */
		assert(!(late && got));
		if
		:: got -> assert(!freed)	/* use the resource */
		:: else -> skip
		fi;
		if
		:: got -> assert(!freed)	/* and again, later */
		:: else -> skip
		fi;
#ifdef BUG_UNLOCK_WRONG_IDX
		unlockc[2 * r + idx]++;		/* upstream bug 1: index lost */
#else
		unlockc[2 * r + i]++;		/* srcu_read_unlock() */
#endif
		n++
	:: else -> break
	od
}

proctype revoker()
{
	byte j, w, ul, lk, k;

	published = false;			/* revocable_detach() */
#ifndef BUG_NO_WAIT
	synchronize_srcu();
#endif
	freed = true;				/* the owner frees */
	revoked = true
}

proctype other_updater()
{
	byte j, w, ul, lk, k, g;

	do
	:: g < NGP -> synchronize_srcu(); g++
	:: else -> break
	od
}

init
{
	byte r;

	atomic {
		r = 0;
		do
		:: r < NR -> run reader(r); r++
		:: else -> break
		od;
		run revoker();
		run other_updater()
	}
}

ltl terminates { <> revoked }
