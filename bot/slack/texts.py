"""Every sentence the Slack bot says on its own (rule texts come from the rule book), in English
and Chinese."""

from __future__ import annotations

LANGS = ("en", "zh")

TEXTS: dict[str, dict[str, str]] = {
    "confidence": {"en": "confidence {pct}%", "zh": "置信度 {pct}%"},
    "rule": {"en": "rule `{rule_id}`", "zh": "规则 `{rule_id}`"},
    "cause": {"en": "*Cause*", "zh": "*原因*"},
    "fix": {"en": "*Fix*", "zh": "*解决办法*"},
    "caveats": {"en": "*Caveats*", "zh": "*注意*"},
    "evidence": {"en": "*Evidence* (line {line_no})", "zh": "*依据*（第 {line_no} 行）"},
    "raised": {"en": "*Raised in vLLM* {where}", "zh": "*vLLM 抛出位置* {where}"},
    "raised_plain": {"en": "Raised in vLLM: {where}", "zh": "vLLM 抛出位置：{where}"},
    "alternatives": {"en": "Other possibilities: {items}", "zh": "其他可能：{items}"},
    "evidence_plain": {"en": "Evidence (line {line_no}):", "zh": "依据（第 {line_no} 行）："},
    "first_error": {"en": "First error (line {line_no}):", "zh": "第一个错误（第 {line_no} 行）："},
    "also_possible": {"en": "Also possible: {title} ({pct}%, rule `{rule_id}`)",
                      "zh": "其他可能：{title}（{pct}%，规则 `{rule_id}`）"},
    "rulebook": {"en": "Rule book {version}", "zh": "规则库版本 {version}"},
    "full_in_file": {"en": "_The full text is in the attached file._", "zh": "_完整内容见附件。_"},
    "cut": {"en": "… (cut)", "zh": "…（已截断）"},
    "file_comment": {"en": "Full diagnosis and the first error, as a file.", "zh": "完整诊断和第一处错误（文件）。"},
    "fixed": {"en": "Fixed it", "zh": "解决了"},
    "run_repro": {"en": "Run repro", "zh": "复现一下"},
    "wrong": {"en": "Wrong", "zh": "不对"},
    "partly": {"en": "Partly", "zh": "部分对"},
    "feedback_prompt": {"en": "Did this help?", "zh": "这个回答有帮助吗？"},
    "feedback_received": {
        "en": "Feedback received from <@{user}>: *{verdict}*. Thank you.",
        "zh": "已收到 <@{user}> 的反馈：*{verdict}*。谢谢。",
    },
    "no_diagnosis_title": {"en": "No confident diagnosis", "zh": "没有把握的诊断"},
    "possible": {"en": "Possible: {items}", "zh": "可能是：{items}"},
    "versions_seen": {"en": "seen in the log: {items}", "zh": "日志中的版本：{items}"},
    # slash command and modal
    "help": {
        "en": (
            "*vllm-doctor* reads failing vLLM logs and says what broke and how to fix it.\n"
            "• Paste a log (or attach a `.log`/`.txt` file) in a help channel where I am a member: "
            "I answer in the thread when I recognise the error.\n"
            "• `/vllm diagnose <log text>`: diagnose a log right here, only you see the answer. "
            "`/vllm diagnose` with no text opens a form with a text box and a file upload.\n"
            "• `/vllm repro <model-path> [key=value ...]`: run the model on a GPU worker, adding your "
            "settings back one at a time, and report which one breaks it.\n"
            "• `/vllm lang en|zh`: answer me in English or Chinese.\n"
            "• `/vllm help`: this text."
        ),
        "zh": (
            "*vllm-doctor* 读 vLLM 报错日志，告诉你哪里坏了、怎么修。\n"
            "• 在我加入的求助频道贴日志（或上传 `.log`/`.txt` 文件）：认出报错时我会在帖子里回复。\n"
            "• `/vllm diagnose <日志>`：就地诊断，只有你能看到回答。不带文字的 `/vllm diagnose` 会打开"
            "一个可以粘贴或上传文件的表单。\n"
            "• `/vllm repro <模型路径> [key=value ...]`：在 GPU 机器上运行该模型，逐个加回你的参数，找出导致失败的那个。\n"
            "• `/vllm lang en|zh`：用英文或中文回答我。\n"
            "• `/vllm help`：显示本说明。"
        ),
    },
    "unknown_subcommand": {
        "en": "I don't know `/vllm {sub}`. Try `/vllm help`.",
        "zh": "不认识 `/vllm {sub}`。试试 `/vllm help`。",
    },
    "lang_set": {"en": "I will answer you in English.", "zh": "之后用中文回答你。"},
    "lang_usage": {"en": "Usage: `/vllm lang en` or `/vllm lang zh`.", "zh": "用法：`/vllm lang en` 或 `/vllm lang zh`。"},
    "modal_title": {"en": "Diagnose a vLLM log", "zh": "诊断 vLLM 日志"},
    "modal_submit": {"en": "Diagnose", "zh": "诊断"},
    "modal_paste": {"en": "Paste the log (up to 3000 characters)", "zh": "粘贴日志（最多 3000 字符）"},
    "modal_file": {"en": "…or upload the log file", "zh": "……或上传日志文件"},
    "modal_empty": {"en": "Paste some log text or upload a file.", "zh": "请粘贴日志或上传文件。"},
    "modal_failed": {
        "en": "I could not open the form ({error}). Try `/vllm diagnose <log text>` or attach the log in a help channel.",
        "zh": "表单没能打开（{error}）。可以用 `/vllm diagnose <日志>`，或在求助频道上传日志。",
    },
    "reason_title": {"en": "What was wrong?", "zh": "哪里不对？"},
    "reason_label": {"en": "Tell us why (optional)", "zh": "说说原因（可选）"},
    "reason_submit": {"en": "Send", "zh": "发送"},
    # files
    "file_too_large": {
        "en": "`{name}` is {size_mb:.1f} MB and I read files up to {limit_mb:.0f} MB. Attach the part of the log from "
              "the first `Traceback` on (e.g. `grep -n -B5 -A60 Traceback vllm.log | head -200`).",
        "zh": "`{name}` 有 {size_mb:.1f} MB，我只读 {limit_mb:.0f} MB 以内的文件。请上传从第一条 `Traceback` 开始的部分"
              "（例如 `grep -n -B5 -A60 Traceback vllm.log | head -200`）。",
    },
    "file_unreadable": {
        "en": "I could not read `{name}`: {why}.",
        "zh": "没能读取 `{name}`:{why}。",
    },
    "truncated": {"en": "Your paste was large; {note}", "zh": "日志较大；{note}"},
    # repro
    "repro_usage": {
        "en": "Usage: `/vllm repro <model-path> [key=value ...]`, e.g. `/vllm repro /models/qwen2.5-7b max_model_len=32768`.",
        "zh": "用法：`/vllm repro <模型路径> [key=value ...]`，例如 `/vllm repro /models/qwen2.5-7b max_model_len=32768`。",
    },
    "repro_requested": {
        "en": "<@{user}> asked for a repro of `{model}`{settings}. Results will be posted in this thread.",
        "zh": "<@{user}> 请求复现 `{model}`{settings}。结果会发在这个帖子里。",
    },
    "repro_queued": {"en": "Queued as job #{job_id}.", "zh": "已排队，任务 #{job_id}。"},
    "repro_refused": {"en": "Repro refused: {reason}", "zh": "复现请求被拒绝：{reason}"},
    "repro_unavailable": {
        "en": "Repro is not available on this bot yet ({why}).",
        "zh": "这个机器人暂时不能复现（{why}）。",
    },
    "repro_no_channel": {
        "en": "I could not post in this conversation ({error}). Run `/vllm repro` in a channel I am a member of.",
        "zh": "没法在这里发消息（{error}）。请在我加入的频道里运行 `/vllm repro`。",
    },
    "repro_script": {"en": "The repro script for job #{job_id}.", "zh": "任务 #{job_id} 的复现脚本。"},
    "internal_error": {
        "en": "Something went wrong on my side ({error}). The log was not lost; try again in a minute.",
        "zh": "我这边出错了（{error}）。请稍后再试。",
    },
}


def t(key: str, lang: str, **values: object) -> str:
    variants = TEXTS[key]
    return variants.get(lang, variants["en"]).format(**values)
