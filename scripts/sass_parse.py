"""sass_parse.py -- the functions of a `cuobjdump -sass` listing, for
scripts/screen-sass.py and scripts/sass-roles.py."""
import re

_INS = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def functions(path):
    """{function name: [(address, instruction text), ...]} in listing order."""
    funcs, cur = {}, None
    for line in open(path, errors="replace"):
        if "Function :" in line:
            cur = line.split("Function :")[1].strip()
            funcs[cur] = []
        elif cur is not None:
            m = _INS.match(line)
            if m:
                funcs[cur].append((int(m.group(1), 16), m.group(2)))
    return funcs
