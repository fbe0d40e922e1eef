"""camelCase aliases for snake_case field names, cheaply (pyadk's content types have
hundreds of fields, each aliased when its class is created at import)."""

from functools import cache


@cache
def to_camel(name: str) -> str:
    """``snake_case`` -> ``snakeCase``: what ``pydantic.alias_generators.to_camel`` gives
    for names of lower-case letters joined by single underscores, without its regular
    expressions; names in another form (digits, capitals...) go to pydantic's function."""
    words = name.split("_")
    if not all(word.isalpha() and word.islower() for word in words):
        from pydantic.alias_generators import to_camel as pydantic_to_camel

        return pydantic_to_camel(name)
    return words[0] + "".join(word.capitalize() for word in words[1:])
