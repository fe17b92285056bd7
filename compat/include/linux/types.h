/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/types.h>. */
#ifndef _COMPAT_LINUX_TYPES_H
#define _COMPAT_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include_next <linux/types.h>
#include <linux/compiler.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#endif
