// The image's Python stack (see cardtable_pystack.c); force-included into the port's C files
// so that main.c knows the hook MICROPY_BOARD_EARLY_INIT names.
#ifndef CARDTABLE_PYSTACK_H
#define CARDTABLE_PYSTACK_H
void cardtable_pystack_init(void);
#endif
