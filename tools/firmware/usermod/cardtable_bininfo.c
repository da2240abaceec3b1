// Binary info for picotool: this image is cardtable (version and build hash), on MicroPython.
#include "pico/binary_info.h"
#include "genhdr/mpversion.h"
#include "cardtable_build.h"

bi_decl(bi_program_name("cardtable"))
// picotool shows the last version string it reads; the linker places this one after main.c's.
bi_decl(bi_program_version_string(CARDTABLE_VERSION " build " CARDTABLE_BUILD))
bi_decl(bi_program_description("NFC card table referee on MicroPython " MICROPY_GIT_TAG))
bi_decl(bi_program_build_attribute("cardtable build " CARDTABLE_BUILD))
