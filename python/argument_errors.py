"""Clearer TypeErrors for wrong argument types: pybind11's "incompatible function
arguments" lists the signatures and the values; this names, per parameter, the
type expected and the type given. Run once by the module's initialisation (the
C++ build embeds this file), which passes the module to install()."""
import functools


def _matching(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([":
            depth += 1
        elif text[i] in ")]":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _split_top(text):
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _signatures(message):
    """The signatures pybind11's message lists: [(text, [(name, type, required)])]."""
    found = []
    for line in message.split("\n")[1:]:
        line = line.strip()
        if not line:
            break
        number, _, signature = line.partition(". ")
        if not number.isdigit():
            continue
        open_at = signature.find("(")
        close_at = _matching(signature, open_at)
        params = []
        for part in _split_top(signature[open_at + 1:close_at]):
            head, _, default = part.partition(" = ")
            name, _, kind = head.partition(": ")
            params.append((name.strip(), kind.strip() or "any", not default))
        found.append((signature, params))
    return found


def _shown(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_SIMPLE = {"float": (int, float), "int": (int,), "str": (str,), "bool": (bool,)}


def _fits(kind, value, module):
    """True when the value is of the expected type; None when that cannot be told from its name."""
    if kind in _SIMPLE:
        return isinstance(value, _SIMPLE[kind]) and not (kind != "bool" and isinstance(value, bool))
    if kind.startswith(module.__name__ + "."):
        cls = getattr(module, kind[len(module.__name__) + 1:], None)
        return isinstance(value, cls) if isinstance(cls, type) else None
    return None


def _explain(name, message, args, kwargs, module):
    constructor = "incompatible constructor arguments" in message
    given = list(args[1:] if constructor else args)
    lines = []
    for signature, params in _signatures(message):
        shown = signature if constructor else name + signature
        lines.append(f"  {shown}")
        named = {p[0]: p for p in params}
        for (pname, kind, _), value in zip(params, given):
            if pname != "self" and _fits(kind, value, module) is not True:
                lines.append(f"    {pname}: expected {kind}, got {type(value).__name__} {_shown(value)}")
        for extra in given[len(params):]:
            lines.append(f"    one argument too many: {type(extra).__name__} {_shown(extra)}")
        for key, value in kwargs.items():
            if key in named and _fits(named[key][1], value, module) is not True:
                lines.append(f"    {key}: expected {named[key][1]}, got {type(value).__name__} {_shown(value)}")
            elif key not in named:
                lines.append(f"    {key}=: no such argument")
        for pname, kind, required in params[len(given):]:
            if required and pname not in kwargs:
                lines.append(f"    {pname}: missing ({kind})")
    return f"{name}(): the arguments do not match its parameters:\n" + "\n".join(lines)


def _wrap(function, name, module):
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            text = str(error)
            if "incompatible function arguments" not in text and "incompatible constructor arguments" not in text:
                raise
            raise TypeError(_explain(name, text, args, kwargs, module)) from None
    return call


def install(module):
    for key, value in list(vars(module).items()):
        if type(value).__name__ == "builtin_function_or_method" and not key.startswith("_"):
            setattr(module, key, _wrap(value, key, module))
        elif isinstance(value, type) and value.__module__ == module.__name__ and not issubclass(value, BaseException):
            for attribute, member in list(vars(value).items()):
                if type(member).__name__ == "instancemethod" and (attribute == "__init__" or not attribute.startswith("_")):
                    setattr(value, attribute, _wrap(member, f"{value.__name__}.{attribute}", module))
