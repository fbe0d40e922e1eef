"""Evaluate agents against recorded conversations, locally (google-adk's eval format).

``pyadk eval AGENT_DIR FILE.evalset.json`` from the command line, or
``await AgentEvaluator.evaluate("my_agent", "tests/eval")`` in a test. Model-judged
metrics ask any model pyadk's registry resolves; so does the user simulator that plays
an eval case's ``conversationScenario``.
"""

from pyadk.evaluation._rouge import MissingEvalExtraError
from pyadk.evaluation.agent_evaluator import AgentEvaluator
from pyadk.evaluation.conversation_scenarios import ConversationScenario, ConversationScenarios
from pyadk.evaluation.eval_case import (
    EvalCase,
    IntermediateData,
    Invocation,
    SessionInput,
    get_all_tool_calls,
)
from pyadk.evaluation.eval_config import (
    DEFAULT_CRITERIA,
    EvalConfig,
    EvalConfigError,
    find_config_for_test_file,
    get_eval_metrics_from_config,
    load_eval_config,
)
from pyadk.evaluation.eval_metrics import (
    BaseCriterion,
    EvalMetric,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalStatus,
    HallucinationsCriterion,
    JudgedCriterion,
    JudgeModelOptions,
    LlmAsAJudgeCriterion,
    LlmBackedUserSimulatorCriterion,
    PrebuiltMetrics,
    RubricsBasedCriterion,
    ToolTrajectoryCriterion,
)
from pyadk.evaluation.eval_result import EvalCaseResult, EvalSetResult
from pyadk.evaluation.eval_rubrics import Rubric, RubricContent, RubricScore
from pyadk.evaluation.eval_runner import (
    check_user_simulation,
    evaluate_eval_case,
    evaluate_eval_set,
)
from pyadk.evaluation.eval_set import EvalSet
from pyadk.evaluation.eval_set_files import EvalSetFileError, eval_set_files, load_eval_set
from pyadk.evaluation.eval_summary import (
    CaseSummary,
    MetricSummary,
    failure_lines,
    format_summaries,
    summarize,
)
from pyadk.evaluation.evaluation_generator import generate_invocations, invocation_from_events
from pyadk.evaluation.evaluator import EvaluationResult, Evaluator, PerInvocationResult
from pyadk.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator
from pyadk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator
from pyadk.evaluation.judge_model import JudgeModel, JudgeModelError
from pyadk.evaluation.llm_as_judge import AutoRaterScore, LlmAsJudge
from pyadk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager
from pyadk.evaluation.local_eval_sets_manager import LocalEvalSetsManager
from pyadk.evaluation.metric_registry import get_evaluator, register_evaluator
from pyadk.evaluation.response_evaluator import ResponseEvaluator
from pyadk.evaluation.rubric_based_evaluator import RubricBasedEvaluator
from pyadk.evaluation.rubric_based_final_response_quality_v1 import (
    RubricBasedFinalResponseQualityV1Evaluator,
)
from pyadk.evaluation.rubric_based_tool_use_quality_v1 import RubricBasedToolUseV1Evaluator
from pyadk.evaluation.simulated_generation import generate_simulated_invocations
from pyadk.evaluation.simulation.llm_backed_user_simulator import (
    LlmBackedUserSimulator,
    LlmBackedUserSimulatorConfig,
)
from pyadk.evaluation.simulation.per_turn_user_simulator_quality_v1 import (
    PerTurnUserSimulatorQualityV1,
)
from pyadk.evaluation.simulation.pre_built_personas import get_default_persona_registry
from pyadk.evaluation.simulation.static_user_simulator import StaticUserSimulator
from pyadk.evaluation.simulation.user_simulator import (
    BaseUserSimulatorConfig,
    NextUserMessage,
    Status,
    UserSimulator,
    register_user_simulator,
)
from pyadk.evaluation.simulation.user_simulator_personas import (
    UserBehavior,
    UserPersona,
    UserPersonaRegistry,
)
from pyadk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
from pyadk.evaluation.tool_fakes import ToolFake, ToolFakesPlugin, recorded_fakes
from pyadk.evaluation.trajectory_evaluator import TrajectoryEvaluator

__all__ = [
    "DEFAULT_CRITERIA",
    "AgentEvaluator",
    "AutoRaterScore",
    "BaseCriterion",
    "BaseUserSimulatorConfig",
    "CaseSummary",
    "ConversationScenario",
    "ConversationScenarios",
    "EvalCase",
    "EvalCaseResult",
    "EvalConfig",
    "EvalConfigError",
    "EvalMetric",
    "EvalMetricResult",
    "EvalMetricResultPerInvocation",
    "EvalSet",
    "EvalSetFileError",
    "EvalSetResult",
    "EvalStatus",
    "EvaluationResult",
    "Evaluator",
    "FinalResponseMatchV2Evaluator",
    "HallucinationsCriterion",
    "HallucinationsV1Evaluator",
    "IntermediateData",
    "Invocation",
    "JudgeModel",
    "JudgeModelError",
    "JudgeModelOptions",
    "JudgedCriterion",
    "LlmAsAJudgeCriterion",
    "LlmAsJudge",
    "LlmBackedUserSimulator",
    "LlmBackedUserSimulatorConfig",
    "LlmBackedUserSimulatorCriterion",
    "LocalEvalSetResultsManager",
    "LocalEvalSetsManager",
    "MetricSummary",
    "MissingEvalExtraError",
    "NextUserMessage",
    "PerInvocationResult",
    "PerTurnUserSimulatorQualityV1",
    "PrebuiltMetrics",
    "ResponseEvaluator",
    "Rubric",
    "RubricBasedEvaluator",
    "RubricBasedFinalResponseQualityV1Evaluator",
    "RubricBasedToolUseV1Evaluator",
    "RubricContent",
    "RubricScore",
    "RubricsBasedCriterion",
    "SessionInput",
    "StaticUserSimulator",
    "Status",
    "ToolFake",
    "ToolFakesPlugin",
    "ToolTrajectoryCriterion",
    "TrajectoryEvaluator",
    "UserBehavior",
    "UserPersona",
    "UserPersonaRegistry",
    "UserSimulator",
    "UserSimulatorProvider",
    "check_user_simulation",
    "eval_set_files",
    "evaluate_eval_case",
    "evaluate_eval_set",
    "failure_lines",
    "find_config_for_test_file",
    "format_summaries",
    "generate_invocations",
    "generate_simulated_invocations",
    "get_all_tool_calls",
    "get_default_persona_registry",
    "get_eval_metrics_from_config",
    "get_evaluator",
    "invocation_from_events",
    "load_eval_config",
    "load_eval_set",
    "recorded_fakes",
    "register_evaluator",
    "register_user_simulator",
    "summarize",
]
