// The Python stack: every call's frame (locals and value stack) comes from this buffer, last in
// first out, instead of the GC heap (MICROPY_ENABLE_PYSTACK). Without it MicroPython puts a frame
// of more than 11 words on the heap at every call (py/objfun.c VM_MAX_STATE_ON_STACK), and
// gc_alloc searches the table's fragmented heap for it: measured on the emulated RP2040
// (bench/rp2profile.py), a third of the table's loop went there.
#include "py/runtime.h"
#include "py/pystack.h"
#include "cardtable_pystack.h"

// The deepest the table went in a Forty-Fives game from power-up was 1,412 bytes
// (bench/rp2profile.py); a frame that does not fit raises RuntimeError("pystack exhausted"),
// which the table reports as a fault. 8 KB of the ~230 KB heap is cheap room to spare.
#define CARDTABLE_PYSTACK_BYTES (8 * 1024)

static mp_obj_t pystack[CARDTABLE_PYSTACK_BYTES / sizeof(mp_obj_t)];

// Called once at power-up, before any Python runs (MICROPY_BOARD_EARLY_INIT), and again after
// each soft reset (MICROPY_BOARD_END_SOFT_RESET): the stack starts empty each time.
void cardtable_pystack_init(void) {
    mp_pystack_init(pystack, &pystack[MP_ARRAY_SIZE(pystack)]);
}
