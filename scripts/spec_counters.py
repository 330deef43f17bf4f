"""vLLM's speculative-decoding counters as the fault server exposes them (`--metrics
vllm-spec`): the series names and labels of `vllm/v1/spec_decode/metrics.py`
(`SpecDecodingProm`), as Prometheus text with two engines' label sets, so a reader must sum
over the labels it does not key on."""

from __future__ import annotations

import threading
from typing import Any

POSITIONS = 5
"""num_speculative_tokens of the simulated server: positions 0..4 are always exposed."""


class SpecCounters:
    """Counters a request's `vllm_spec` fault raises (engine 0; engine 1 stays at 1 each, a
    constant that a reader's window rise must cancel)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.drafts = 0
        self.draft_tokens = 0
        self.accepted_tokens = 0
        self.per_pos = [0] * POSITIONS
        self.created = 1.7e9
        """The counters' `_created` time: a restart moves it, as a restarted vLLM's does."""

    def add(self, spec: dict[str, Any]) -> None:
        with self._lock:
            self.drafts += spec["drafts"]
            self.draft_tokens += spec["draft_tokens"]
            self.accepted_tokens += spec["accepted_tokens"]
            for position, count in enumerate(spec["per_pos"]):
                self.per_pos[position] += count

    def restart(self) -> None:
        """Back to zero, as a restarted server's counters are (`--metrics restarting`)."""
        with self._lock:
            self.drafts = self.draft_tokens = self.accepted_tokens = 0
            self.per_pos = [0] * POSITIONS
            self.created += 60.0

    def series(self) -> list[str]:
        with self._lock:
            totals = {
                "vllm:spec_decode_num_drafts": self.drafts,
                "vllm:spec_decode_num_draft_tokens": self.draft_tokens,
                "vllm:spec_decode_num_accepted_tokens": self.accepted_tokens,
            }
            per_pos = list(self.per_pos)
            created = self.created
        lines = []
        for name, value in totals.items():
            lines.append(f"# TYPE {name} counter")
            lines.append(f'{name}_total{{engine="0",model_name="fault"}} {float(value)}')
            lines.append(f'{name}_total{{engine="1",model_name="fault"}} 1.0')
            lines.append(f'{name}_created{{engine="0",model_name="fault"}} {created}')
        name = "vllm:spec_decode_num_accepted_tokens_per_pos"
        lines.append(f"# TYPE {name} counter")
        for position, value in enumerate(per_pos):
            labels = f'engine="0",model_name="fault",position="{position}"'
            lines.append(f"{name}_total{{{labels}}} {float(value)}")
            lines.append(f'{name}_total{{engine="1",model_name="fault",position="{position}"}} 1.0')
        return lines
