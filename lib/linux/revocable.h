/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * In the kernel the public header lives at <linux/revocable.h>; in
 * userspace it is installed as <revocable.h>.  This forwards one to the
 * other so lib/revocable.c builds unchanged in both.
 */
#include <revocable.h>
