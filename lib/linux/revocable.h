/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <linux/revocable.h> for the userspace build of the core and of the
 * kernel's KUnit suite: the kernel's own header, over the compat layer.
 * Programs include the generated <revocable.h> instead.
 */
#include "../../kernel/new-files/include/linux/revocable.h"
