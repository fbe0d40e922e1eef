"""LlmRequest: everything a model needs for one call."""

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from pyadk import types
from pyadk.utils.attribute_lookup import PlainAttributeLookup
from pyadk.utils.fast_models import construct, set_field

if TYPE_CHECKING:
    from pyadk.tools.base_tool import BaseTool


class LlmRequest(PlainAttributeLookup, BaseModel):
    """A model call: model name, history (``contents``), config with the system
    instruction, tool declarations and output schema, and the tools by name."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    model: str | None = None
    contents: list[types.Content] = Field(default_factory=list)
    config: types.GenerateContentConfig = Field(default_factory=types.GenerateContentConfig)
    live_connect_config: types.LiveConnectConfig | None = None
    """Live mode: how the model connection is opened (see ``BaseLlm.connect``); set on
    the requests of live runs (before their processors and callbacks), None otherwise."""
    tools_dict: dict[str, Any] = Field(default_factory=dict, exclude=True)
    output_schema: Any | None = Field(default=None, exclude=True)

    def append_instructions(self, instructions: list[str]) -> None:
        """Appends text to the system instruction, separated by blank lines."""
        if len(instructions) == 1:  # what the processors append: one text
            joined = instructions[0]
        else:
            joined = "\n\n".join([t for t in instructions if t])
        if not joined:
            return
        config = self.config
        current = config.system_instruction
        if type(current) is not str:
            current = self.system_instruction_text()
        set_field(config, "system_instruction", f"{current}\n\n{joined}" if current else joined)

    def system_instruction_text(self) -> str:
        """The system instruction as plain text ('' when there is none)."""
        si = self.config.system_instruction
        if si is None:
            return ""
        if isinstance(si, str):
            return si
        return si.text or ""

    def append_tools(self, tools: "list[BaseTool]") -> None:
        """Adds the tools' declarations to the request and registers them by name."""
        declarations = []
        for tool in tools:
            declaration = tool._get_declaration()
            if declaration is not None:
                declarations.append(declaration)
            self.tools_dict[tool.name] = tool
        if not declarations:
            return
        declaring = self.function_tool()
        declared = declaring.function_declarations or []
        set_field(declaring, "function_declarations", [*declared, *declarations])

    def function_tool(self) -> types.Tool:
        """The request's function-declaration Tool, created on first use."""
        tools = self.config.tools
        if tools is None:
            tools = []
            set_field(self.config, "tools", tools)
        for tool in tools:
            if tool.function_declarations is not None:
                return tool
        tool = construct(types.Tool, function_declarations=[])
        tools.append(tool)
        return tool

    def set_output_schema(self, schema: type[BaseModel] | types.Schema | dict[str, Any]) -> None:
        """Asks the model for JSON matching ``schema``."""
        self.output_schema = schema
        self.config.response_schema = schema
        self.config.response_mime_type = "application/json"

    def declared_function_names(self) -> list[str]:
        """Names of every function declared to the model in this request."""
        names: list[str] = []
        for tool in self.config.tools or []:
            names.extend(d.name for d in tool.function_declarations or [] if d.name)
        return names
