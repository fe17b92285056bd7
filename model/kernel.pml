/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A Promela model of the kernel read side of revocable resources, checked
 * with spin under a weak memory model (model/check.sh, meson test --suite
 * model, test spin-kernel).  model/revocable.pml checks the userspace SRCU
 * with sequentially consistent interleavings; here the point is what the
 * missing smp_mb() on the read side leaves to the hardware.
 *
 * THE ALGORITHM (the kernel's srcu_read_lock_fast() follows the same idea)
 *
 * A domain has per-CPU counters locks[i] and unlocks[i] for both read
 * indices i and a current index idx.
 *   access:  i = READ_ONCE(idx); this_cpu_inc(locks[i]) (one instruction,
 *            preemption off: an RCU read-side section); compiler barrier;
 *            p = rcu_dereference(res); if p, loads from *p for a while;
 *            compiler barrier; this_cpu_inc(unlocks[i]) on whatever CPU
 *            the reader runs on by then.  No memory barrier anywhere.
 *   synchronize(), under a mutex:  first the quick path: if both
 *            indices balance at a first look, u0, u1 = their unlock sums;
 *            synchronize_rcu(); done if their lock sums still equal u0
 *            and u1.  Otherwise cur = idx; drain(cur ^ 1);
 *            WRITE_ONCE(idx, cur ^ 1); drain(cur);
 *   drain(i):  loop { u = sum of unlocks[i], CPU by CPU;
 *            synchronize_rcu(); l = sum of locks[i]; if (l == u) break; }
 *   revoke:  rcu_assign_pointer(res, NULL); synchronize(); the owner frees.
 * Another updater runs NGP further grace periods in the domain (revokes
 * of other providers), so the index flips while readers are inside, and
 * a reader may stall between reading idx and incrementing (a straggler
 * that counts under an index already flipped away from).
 *
 * WEAK MEMORY, AS ENCODED
 *
 * Stores.  Every store goes to a store buffer first; the hw process moves
 * buffered stores to memory one at a time, in any order across addresses
 * (arm64 reorders stores to different addresses; increments of one
 * counter commute, so a count of pending increments per counter is the
 * buffer).  A reader's buffer is its own (pl/pu, for the CPU it is on):
 * a context switch or migration is a full barrier on both CPUs, so only
 * the running task can have stores in flight.  Each updater has one too
 * (sb_res for res = NULL, sb_idx for the flip); loads read memory, an
 * updater's read of idx its own buffer first.  This gives store->store
 * and store->load reordering on both sides; in particular the correct
 * synchronize() reads drain(cur)'s unlock sum while the flip may still
 * sit in the updater's buffer.
 * Loads.  The reader's uses of the resource are one pending load, use[r]:
 * 1 while it is still ahead in program order (the reader may be preempted
 * and pass any number of quiescent states before it), 2 once the unlock
 * increment has been issued: the load may still be outstanding while
 * that increment reaches memory (load->store reordering), until the
 * CPU's next full barrier.  The hw process performs it, assert(!freed),
 * at any moment in that window.  (Two accesses' uses share the flag: freed
 * only goes from false to true, so one check at the latest allowed moment
 * fails whenever either would.)
 * Full barrier of a CPU = its buffered stores reach memory and its
 * outstanding loads are performed (fb()).  Migrations (NMIG of them) are
 * one; with two readers on two CPUs a migration swaps them, so a CPU never
 * holds two tasks with state in flight.  mutex_unlock() is a release: the
 * updater's buffer drains.
 * synchronize_rcu():  a full barrier for the caller, then every CPU
 * reports a quiescent state, in any order, at any time, while the readers
 * run; a report is a full barrier on that CPU.  The increment is one
 * atomic step, so no report falls inside it: that is the read-side
 * section.  The updater's loads after the call see what the reports
 * flushed.
 * Not encoded: load->load reordering (the reader's res load passing its
 * idx load; an updater's counter loads passing each other across sums,
 * though each sum reads the CPUs in either order); counter wrap (byte
 * counters, bounded accesses); updaters sharing a CPU with a reader.  The
 * argument below does not depend on any of them.
 *
 * PROPERTIES
 *   safety (assertions): an access that obtained the resource never finds
 *     it freed at any of its uses, delayed ones included; an access that
 *     began after the revoke returned gets NULL.
 *   liveness (ltl terminates): the revoke completes (bounded readers,
 *     weak fairness).
 *
 * WHY IT IS SAFE, AND WHAT THE FLIP IS FOR
 *
 * Take one drain(i) that ends with l == u, and a reader R counting under
 * i.  Every unlock counted in u has its lock counted in l: the lock was
 * issued earlier, and by the time the updater reads l it has been
 * flushed, by a migration between the two or else by the report of its
 * CPU inside the synchronize_rcu() between the two sums.  Hence l == u
 * means every lock counted in l has its unlock counted in u.
 *   R's lock counted in l:  its unlock was counted in u, so it was in
 *     memory before synchronize_rcu() began; the CPU R unlocked on then
 *     reports a quiescent state (or R migrates first), which completes
 *     R's outstanding loads before the drain ends.
 *   R's lock not counted in l:  R incremented on its CPU after that CPU
 *     reported in the grace period (had it incremented before, the report
 *     or a migration in between would have flushed the increment before
 *     l was read).  So a full barrier on R's CPU after the grace period
 *     began, that report or the migration that brought R there, comes
 *     before R's load of res, and res = NULL was visible from the
 *     caller's barrier at the start of the grace period.  R gets NULL.
 * So each drain(i) protects every reader counting under i, whatever the
 * index is at that moment, and synchronize() drains both indices:
 * nothing in the argument mentions the flip.  The flip is for forward
 * progress: new readers go to the index already drained, so a steady
 * stream of them cannot hold drain(cur) off, and stragglers are few.
 *
 * "Reading the counters before the flip" (proposed as a mutant,
 * BUG_COUNTERS_BEFORE_FLIP) is therefore not a safety bug, and spin
 * agrees: the variants SAFE_UNLOCKS_BEFORE_FLIP (drain(cur)'s first
 * unlock sum read before the flip) and SAFE_DRAIN_BEFORE_FLIP (all of
 * drain(cur) before the flip) pass both checks, and check.sh requires
 * them to.  The variant that IS unsafe reads drain(cur)'s lock sum
 * before the flip, BUG_LOCKS_BEFORE_FLIP below: the lock sum then comes
 * before the unlock sum and before the grace period, and both halves of
 * the argument fall (an unlock counted in u need not have its lock in l;
 * nothing completes the outstanding loads of a reader whose unlock is
 * counted after the grace period).  spin finds both: with one reader
 * through an outstanding load; with -DREADER_LOADS_IN_ORDER -DNR=2
 * -DNACC=1 -DNGP=1 (uses performed before the unlock) through the count:
 * the second reader increments after the lock sum and unlocks before the
 * unlock sum, which then matches while the first is still inside.
 *
 * MUTANTS (spin -D...; check.sh requires each caught in every
 * configuration, by the safety run if the liveness run passes)
 *   BUG_NO_RCU_GP: drain() without the synchronize_rcu() between the
 *     sums.  The reader's lock is still buffered when l is read, res =
 *     NULL still in the updater's buffer when it loads res.
 *   BUG_LOCKS_FIRST: drain() reads the lock sum, then synchronize_rcu(),
 *     then the unlock sum.  The reader's unlock reaches memory after the
 *     grace period with its use outstanding; nothing waits for the load.
 *   BUG_NO_PRE_DRAIN: no drain(cur ^ 1) before the flip.  With buffered
 *     updater stores a reader reads the new index before res = NULL is
 *     visible; with -DUPDATER_SC (updater stores straight to memory) only
 *     the straggler remains, and spin finds it: a reader reads idx = 1
 *     before another updater's flip to 0, that grace period ends, the
 *     reader counts under 1 and takes the resource, the revoke flips to
 *     1, drains only 0, and frees it under the reader.
 *   BUG_QS_NO_BARRIER: a quiescent state does not flush the CPU's store
 *     buffer (outstanding loads still complete): the reader's lock
 *     increment, issued before its load of res, is still buffered when
 *     the updater reads l.
 *   BUG_QS_LOADS_PENDING: a quiescent state flushes the stores but leaves
 *     loads outstanding: a reader's use is performed after its counted
 *     unlock and after the free.  (With -DREADER_LOADS_IN_ORDER it
 *     passes, as it should: it is about outstanding loads only.)
 *   BUG_LOCKS_BEFORE_FLIP: see above.
 *   BUG_QUICK_ONE_INDEX: the one-grace-period path checks index 0 only
 *     after its grace period: a reader counting under index 1 (a
 *     straggler, or one that read the flip of the other updater) is
 *     left inside.
 * Each is caught by an assertion violation (an access sees the resource
 * freed).
 *
 * CONFIGURATIONS (check.sh runs every check once per line)
 *   check-config: -DNR=1 -DNACC=2 -DNGP=2
 *   check-config: -DNR=1 -DNACC=2 -DNGP=2 -DUPDATER_SC
 *   check-config: -DNR=2 -DNACC=1 -DNGP=1
 * NR readers (1 or 2) of NACC accesses each, NGP grace periods of the
 * other updater, 2 CPUs, NMIG = 1 migration, byte counters.  Knobs that
 * weaken the hardware, for experiments: -DUPDATER_SC (updater stores go
 * straight to memory), -DREADER_LOADS_IN_ORDER (no outstanding loads).
 *
 * STATE COUNTS AND RUN TIMES
 * (pan alone, gcc -O2, one core of a shared 2-core machine; stored
 * states, and visited for the liveness run under weak fairness)
 *   NR=1 NACC=2 NGP=2            liveness 594,100 (5.11M)
 *                                safety   661,389
 *   the same with -DUPDATER_SC   liveness 424,479 (3.26M)
 *                                safety   482,929
 *   NR=2 NACC=1 NGP=1            liveness 1,258,401 (11.8M)
 *                                safety   1,426,207
 * (with the one-grace-period path; -DNO_QUICK_GP leaves it out)
 * Each mutant is caught within 4,000 to 28,000 stored states, under 0.3 s;
 * the SAFE_ variants cost about as much as the model.  All of check.sh
 * (54 runs of spin, cc and pan) takes about 2.5 minutes.  Out of the
 * suite: NR=2 NACC=2 NGP=1 safety, 101,129,850 states, no error, 194 s
 * and 5.8 GB with -DCOLLAPSE -w27 (its liveness run was not attempted).
 */
#ifndef NR
#define NR	1	/* readers (1 or 2) */
#endif
#if NR < 1 || NR > 2
#error NR must be 1 or 2
#endif
#ifndef NACC
#define NACC	2	/* accesses per reader */
#endif
#ifndef NGP
#define NGP	2	/* grace periods of another updater in the domain */
#endif
#ifndef NMIG
#define NMIG	1	/* migrations (two readers: swaps of the two) */
#endif
#define NCPU	2

/* ---- memory ---- */
bit idx;			/* the domain's current index */
bool published = true;		/* res != NULL */
byte locks[2 * NCPU];		/* per-CPU counters: CPU c, index i at [2c+i] */
byte unlocks[2 * NCPU];

/* ---- ghosts (real time, not memory) ---- */
bool freed;			/* the owner freed the resource */
bool revoked;			/* the revoke returned */
bool gp_lock;			/* the grace-period mutex */

/* ---- readers: CPU, store buffer, outstanding loads ---- */
bit cpu[NR];			/* the CPU reader r runs on */
byte pl[2 * NR];		/* increments of locks[cpu[r]][i] still buffered */
byte pu[2 * NR];		/* same for unlocks[cpu[r]][i] */
byte use[NR];			/* 0: no use; 1: a use still ahead in program
				   order; 2: a use issued before the unlock
				   and not yet performed */
byte moves;			/* migrations done */

/* ---- updaters (0: the revoke, 1: the other updater): store buffers ---- */
bool sb_res;			/* the revoke's res = NULL not yet in memory */
bool sb_idx[2];			/* an index flip not yet in memory ... */
bit sb_idxv[2];			/* ... and its value */

/* A use of the resource is performed now: it must not be freed. */
inline perform_use(r)
{
	assert(!freed);
	use[r] = 0
}

/* Reader r's buffered increments reach memory. */
inline fb_stores(r)
{
	locks[2 * cpu[r]] = locks[2 * cpu[r]] + pl[2 * r];
	locks[2 * cpu[r] + 1] = locks[2 * cpu[r] + 1] + pl[2 * r + 1];
	unlocks[2 * cpu[r]] = unlocks[2 * cpu[r]] + pu[2 * r];
	unlocks[2 * cpu[r] + 1] = unlocks[2 * cpu[r] + 1] + pu[2 * r + 1];
	pl[2 * r] = 0; pl[2 * r + 1] = 0;
	pu[2 * r] = 0; pu[2 * r + 1] = 0
}

/* Reader r's issued loads are performed. */
inline fb_loads(r)
{
	if
	:: use[r] == 2 -> perform_use(r)
	:: else -> skip
	fi
}

/* A full barrier on reader r's CPU, as far as r is concerned. */
inline fb(r)
{
	fb_stores(r);
	fb_loads(r)
}

/* The full barrier of a quiescent state; the mutants leave out half of it. */
inline qs_fb(r)
{
#if defined(BUG_QS_NO_BARRIER)
	fb_loads(r)
#elif defined(BUG_QS_LOADS_PENDING)
	fb_stores(r)
#else
	fb(r)
#endif
}

/* CPU c reports a quiescent state: a full barrier on it. */
inline qs_cpu(c)
{
	if
	:: cpu[0] == c -> qs_fb(0)
	:: else -> skip
	fi;
#if NR > 1
	if
	:: cpu[1] == c -> qs_fb(1)
	:: else -> skip
	fi;
#endif
	skip
}

/* Full barrier of updater u: its buffered stores reach memory. */
inline flush_upd(u)
{
	if
	:: u == 0 && sb_res -> published = false; sb_res = false
	:: else -> skip
	fi;
	if
	:: sb_idx[u] -> idx = sb_idxv[u]; sb_idx[u] = false
	:: else -> skip
	fi
}

/*
 * synchronize_rcu() called by updater u: a full barrier for the caller at
 * the start, then each CPU reports a quiescent state, in any order, at any
 * time, while the readers run; the CPU a reader is incrementing on cannot
 * report in the middle of the increment (it is one atomic step here).
 */
inline synchronize_rcu(u)
{
	atomic { flush_upd(u); qs = 3 };
	do
	:: atomic { qs & 1 -> qs_cpu(0); qs = qs & 2 }
	:: atomic { qs & 2 -> qs_cpu(1); qs = qs & 1 }
	:: qs == 0 -> break
	od
}

/* s = sum over the CPUs of unlocks[c][w] (unl) or locks[c][w], read one
 * CPU at a time */
inline sum(s, unl, w)
{
	if
	:: s = (unl -> unlocks[w] : locks[w]);
	   s = s + (unl -> unlocks[2 + w] : locks[2 + w])
	:: s = (unl -> unlocks[2 + w] : locks[2 + w]);
	   s = s + (unl -> unlocks[w] : locks[w])
	fi
}

/* the check at the end of each round of a drain */
inline drained()
{
	atomic {
		if
		:: ul == lk -> ul = 0; lk = 0; break
		:: else -> ul = 0; lk = 0	/* sleep, retry */
		fi
	}
}

/* The rest of a drain of index w whose unlock sum is read. */
inline drain_after_unlocks(u, w)
{
	do
	::
#ifndef BUG_NO_RCU_GP
		synchronize_rcu(u);
#endif
		sum(lk, 0, w);
		drained();
		sum(ul, 1, w)
	od
}

/* The same, with the lock sum read first. */
inline drain_after_locks(u, w)
{
	do
	::
		synchronize_rcu(u);
		sum(ul, 1, w);
		drained();
		sum(lk, 0, w)
	od
}

/* Wait until index w is drained. */
inline drain(u, w)
{
#ifdef BUG_LOCKS_FIRST
	sum(lk, 0, w);
	drain_after_locks(u, w)
#else
	sum(ul, 1, w);
	drain_after_unlocks(u, w)
#endif
}

inline flip(u)
{
#ifdef UPDATER_SC
	idx = 1 - cur
#else
	atomic {			/* WRITE_ONCE(idx, cur ^ 1) */
		sb_idxv[u] = 1 - cur;
		sb_idx[u] = true
	}
#endif
}

/*
 * revocable_srcu_gp_quick(): with both indices balanced at a first look,
 * a drain of each sharing one synchronize_rcu(), no flip.  quick is set
 * when both still balance after it: the grace period is over.
 */
inline gp_quick(u)
{
	sum(ul, 1, 0);
	sum(lk, 0, 0);
	if
	:: ul == lk ->
		sum(ul2, 1, 1);
		sum(lk2, 0, 1);
		if
		:: ul2 == lk2 ->
#ifndef BUG_NO_RCU_GP
			synchronize_rcu(u);
#endif
			sum(lk, 0, 0);
#ifdef BUG_QUICK_ONE_INDEX
			lk2 = ul2;			/* only index 0 checked */
#else
			sum(lk2, 0, 1);
#endif
			quick = (lk == ul && lk2 == ul2)
		:: else -> skip
		fi
	:: else -> skip
	fi;
	atomic { ul = 0; lk = 0; ul2 = 0; lk2 = 0 }
}

inline synchronize(u)
{
	atomic { !gp_lock -> gp_lock = true };		/* mutex_lock() */
	cur = (sb_idx[u] -> sb_idxv[u] : idx);
#ifndef NO_QUICK_GP
	gp_quick(u);
#endif
	if
	:: quick -> quick = false
	:: else ->
#if defined(SAFE_DRAIN_BEFORE_FLIP)
	drain(u, 1 - cur);
	drain(u, cur);				/* all of it before the flip */
	flip(u);
#elif defined(SAFE_UNLOCKS_BEFORE_FLIP)
	drain(u, 1 - cur);
	sum(ul, 1, cur);			/* drain(cur)'s unlock sum */
	flip(u);
	drain_after_unlocks(u, cur);
#elif defined(BUG_LOCKS_BEFORE_FLIP)
	drain(u, 1 - cur);
	sum(lk, 0, cur);			/* drain(cur)'s lock sum */
	flip(u);
	drain_after_locks(u, cur);
#else
#ifndef BUG_NO_PRE_DRAIN
	drain(u, 1 - cur);
#endif
	flip(u);
	drain(u, cur);
#endif
	fi;
	atomic { flush_upd(u); gp_lock = false; cur = 0 }	/* mutex_unlock() */
}

proctype reader(byte r)
{
	byte n, i;
	bool late, got;

	do
	:: n < NACC ->
		late = revoked;
		i = idx;				/* READ_ONCE(idx) */
		pl[2 * r + i]++;			/* this_cpu_inc(locks[i]) */
		got = published;			/* rcu_dereference(res) */
		assert(!(late && got));
		if
		:: got -> use[r] = 1			/* uses it, for a while */
		:: else -> skip
		fi;
		atomic {				/* this_cpu_inc(unlocks[i]) */
			pu[2 * r + i]++;
			if
#ifdef READER_LOADS_IN_ORDER
			:: use[r] == 1 -> perform_use(r)
#else
			:: use[r] == 1 -> use[r] = 2
#endif
			:: else -> skip
			fi;
			n++;
			i = 0; got = false; late = false
		}
	:: else -> break
	od
}

/* What the hardware and the scheduler do on their own. */
proctype hw()
{
end:
	do
	:: atomic { sb_res -> published = false; sb_res = false }
	:: atomic { sb_idx[0] -> idx = sb_idxv[0]; sb_idx[0] = false }
	:: atomic { sb_idx[1] -> idx = sb_idxv[1]; sb_idx[1] = false }
	:: atomic { pl[0] > 0 -> locks[2 * cpu[0]]++; pl[0]-- }
	:: atomic { pl[1] > 0 -> locks[2 * cpu[0] + 1]++; pl[1]-- }
	:: atomic { pu[0] > 0 -> unlocks[2 * cpu[0]]++; pu[0]-- }
	:: atomic { pu[1] > 0 -> unlocks[2 * cpu[0] + 1]++; pu[1]-- }
	:: atomic { use[0] > 0 -> perform_use(0) }
#if NR == 1
	:: atomic { moves < NMIG -> fb(0); cpu[0] = 1 - cpu[0]; moves++ }
#else
	:: atomic { moves < NMIG -> fb(0); fb(1);	/* the readers swap */
		cpu[0] = 1 - cpu[0]; cpu[1] = 1 - cpu[1]; moves++ }
#endif
#if NR > 1
	:: atomic { pl[2] > 0 -> locks[2 * cpu[1]]++; pl[2]-- }
	:: atomic { pl[3] > 0 -> locks[2 * cpu[1] + 1]++; pl[3]-- }
	:: atomic { pu[2] > 0 -> unlocks[2 * cpu[1]]++; pu[2]-- }
	:: atomic { pu[3] > 0 -> unlocks[2 * cpu[1] + 1]++; pu[3]-- }
	:: atomic { use[1] > 0 -> perform_use(1) }
#endif
	od
}

proctype revoker()
{
	byte cur, ul, lk, ul2, lk2, qs;
	bool quick;

#ifdef UPDATER_SC
	published = false;
#else
	sb_res = true;				/* rcu_assign_pointer(res, NULL) */
#endif
	synchronize(0);
	freed = true;				/* the owner frees */
	revoked = true
}

proctype other_updater()
{
	byte cur, ul, lk, ul2, lk2, qs, g;
	bool quick;

	do
	:: g < NGP -> synchronize(1); g++
	:: else -> break
	od
}

init
{
	atomic {
#if NR > 1
		cpu[1] = 1;
		run reader(1);
#endif
		run reader(0);
		run revoker();
		run other_updater();
		run hw()
	}
}

ltl terminates { <> revoked }
