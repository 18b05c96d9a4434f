"""The JSON report of CONTRACT section 5."""

from __future__ import annotations

import json


def render_json(result, lang: str) -> str:
    return json.dumps(result.to_json(lang), ensure_ascii=False, indent=2) + "\n"
