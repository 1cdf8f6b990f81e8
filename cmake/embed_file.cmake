# Writes a C++ source holding the bytes of IN as a std::string_view NAME.
# A byte array, not a string literal, so any content and size is safe.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT}
"// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace ${NAMESPACE} {\nnamespace {\nconstexpr unsigned char ${NAME}_bytes[] = {${bytes} 0};\n}\nextern const std::string_view ${NAME};\nconst std::string_view ${NAME}{reinterpret_cast<const char*>(${NAME}_bytes), ${size}};\n}\n")
