# cmake -DINPUT=file -DOUTPUT=file.c -DSYMBOL=name -P embed.cmake
# Turns a text file into a NUL-terminated C array so schema.sql stays the one
# source of the catalog.
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT}; do not edit. */\nconst char ${SYMBOL}[] = {${bytes}0x00};\n")
