#!/bin/bash
# Requests that a running vLLM OpenAI server refuses (see README: "Request errors").
# Usage: request_errors.sh PORT MODEL OUT_DIR [names...]; each request's HTTP status and body go to
# OUT_DIR/NAME.body; the server's own log is whatever its stdout/stderr were sent to.
PORT=$1; MODEL=$2; OUT=$3; shift 3
mkdir -p "$OUT"
U="http://127.0.0.1:$PORT/v1"
msg='[{"role":"user","content":"hello"}]'
tool='[{"type":"function","function":{"name":"get_weather","description":"weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]'
# a chat request with a text part and one image part, the image at URL $1
img() { echo "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"$1\"}}]}],\"max_tokens\":4}"; }
post() { # name endpoint json
  local name=$1 ep=$2 body=$3
  if [ ${#NAMES[@]} -gt 0 ] && [[ ! " ${NAMES[*]} " =~ " $name " ]]; then return; fi
  echo "== $name" >&2
  curl -s -m 120 -o "$OUT/$name.json" -w '%{http_code}' "$U/$ep" -H 'Content-Type: application/json' -d "$body" > "$OUT/$name.code"
  { printf '%s ' "$(cat "$OUT/$name.code")"; cat "$OUT/$name.json"; echo; } > "$OUT/$name.body"
  rm -f "$OUT/$name.json" "$OUT/$name.code"
  cat "$OUT/$name.body" >&2
}
NAMES=("$@")
c() { post "$1" chat/completions "$2"; }
# chat templates passed with the request (the server runs with --trust-request-chat-template)
c tpl-syntax-unclosed "{\"model\":\"$MODEL\",\"messages\":$msg,\"chat_template\":\"{% for m in messages %}{{ m.content }}{% endfor\"}"
c tpl-syntax-json-escaped "{\"model\":\"$MODEL\",\"messages\":$msg,\"chat_template\":\"{% for m in messages %}{{ m[\\\\\\\"content\\\\\\\"] }}{% endfor %}\"}"
c tpl-undefined-tool-calls "{\"model\":\"$MODEL\",\"messages\":$msg,\"chat_template\":\"{% for m in messages %}{{ m.content }}{{ m.tool_calls[0].function.name }}{% endfor %}\"}"
c tpl-none-concat "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny\"}],\"chat_template\":\"{% for m in messages %}{{ '<' + m['role'] + '>' + m['content'] + '\\\\n' }}{% endfor %}\"}"
c tpl-undefined-tools "{\"model\":\"$MODEL\",\"messages\":$msg,\"chat_template\":\"{{ tools[0].function.name }}{% for m in messages %}{{ m.content }}{% endfor %}\"}"
c tpl-typeerror-none-plus "{\"model\":\"$MODEL\",\"messages\":$msg,\"chat_template\":\"{% for m in messages %}{{ m.content + m.name }}{% endfor %}\"}"
# tools without a parser
c tool-choice-auto "{\"model\":\"$MODEL\",\"messages\":$msg,\"tools\":$tool,\"tool_choice\":\"auto\",\"max_tokens\":4}"
c tool-choice-required "{\"model\":\"$MODEL\",\"messages\":$msg,\"tools\":$tool,\"tool_choice\":\"required\",\"max_tokens\":4}"
c tool-choice-named-unknown "{\"model\":\"$MODEL\",\"messages\":$msg,\"tools\":$tool,\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}},\"max_tokens\":4}"
c tool-choice-without-tools "{\"model\":\"$MODEL\",\"messages\":$msg,\"tool_choice\":\"required\",\"max_tokens\":4}"
c tool-message-no-id "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"tool\",\"content\":\"sunny\"}],\"max_tokens\":4}"
# multimodal content to a text-only model
c image-to-text-model "$(img data:image/png\;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==)"
c image-url-unreachable "$(img http://127.0.0.1:9/cat.png)"
# structured outputs
c json-schema-bad-type "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"strin\"}}}}}}"
c json-schema-missing "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"response_format\":{\"type\":\"json_schema\"}}"
c regex-invalid "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"structured_outputs\":{\"regex\":\"(ab[\"}}"
c grammar-invalid "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"structured_outputs\":{\"grammar\":\"root ::= foo\"}}"
c guided-json-old "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"guided_json\":{\"type\":\"object\"}}"
c choice-empty "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"structured_outputs\":{\"choice\":[]}}"
c two-structured "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"structured_outputs\":{\"regex\":\"a+\",\"choice\":[\"a\",\"b\"]}}"
# sampling parameters
c temperature-negative "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"temperature\":-1}"
c top-p-over-one "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"top_p\":1.5}"
c top-k-zero "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"top_k\":0}"
c n-zero "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"n\":0}"
c rep-penalty-zero "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"repetition_penalty\":0}"
c presence-penalty-big "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"presence_penalty\":5}"
c top-logprobs-no-logprobs "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"top_logprobs\":3}"
c logprobs-30 "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"logprobs\":true,\"top_logprobs\":30}"
c max-tokens-too-large "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":100000}"
c stream-options-no-stream "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"stream_options\":{\"include_usage\":true}}"
c best-of "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"n\":1,\"best_of\":2}"
c min-tokens-over-max "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"min_tokens\":10}"
c logit-bias-bad-token "{\"model\":\"$MODEL\",\"messages\":$msg,\"max_tokens\":4,\"logit_bias\":{\"999999\":5}}"
c messages-not-list "{\"model\":\"$MODEL\",\"messages\":\"hello\",\"max_tokens\":4}"
post completions-prompt-empty completions "{\"model\":\"$MODEL\",\"prompt\":\"\",\"max_tokens\":4}"
post completions-prompt-token-oob completions "{\"model\":\"$MODEL\",\"prompt\":[5,99999],\"max_tokens\":4}"
# --tokenizer-mode mistral (mistral_common validates the conversation before it is encoded)
tc() { echo "{\"id\":\"$1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}}"; }
c mistral-ends-with-assistant "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"hello\"}],\"max_tokens\":4}"
c mistral-starts-with-assistant "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"assistant\",\"content\":\"hello\"},{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}"
c mistral-tool-call-id-length "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"tool_calls\":[$(tc call_1)]},{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny\"}],\"tools\":$tool,\"max_tokens\":4}"
c mistral-tool-result-missing "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"tool_calls\":[$(tc abcdefghi),$(tc abcdefgh2)]},{\"role\":\"tool\",\"tool_call_id\":\"abcdefghi\",\"content\":\"sunny\"}],\"tools\":$tool,\"max_tokens\":4}"
c mistral-content-and-tool-calls "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"let me check\",\"tool_calls\":[$(tc abcdefghi)]},{\"role\":\"tool\",\"tool_call_id\":\"abcdefghi\",\"content\":\"sunny\"}],\"tools\":$tool,\"max_tokens\":4}"
c mistral-tool-name-space "{\"model\":\"$MODEL\",\"messages\":$msg,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get weather\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}],\"tool_choice\":\"none\",\"max_tokens\":4}"
c mistral-system-after-user "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":\"hello\"},{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}"
c mistral-empty-system "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"system\",\"content\":\"\"},{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4}"
# media parts for a multimodal model (a tiny LLaVA); a loopback file server on 18845 and a port on 18846 that
# accepts and never answers (run the server with VLLM_IMAGE_FETCH_TIMEOUT=3)
c media-url-ok "$(img http://127.0.0.1:18845/ok.png)"
c media-url-refused "$(img http://127.0.0.1:9/cat.png)"
c media-url-404 "$(img http://127.0.0.1:18845/missing.png)"
c media-url-not-image "$(img http://127.0.0.1:18845/cat.png)"
c media-url-timeout "$(img http://127.0.0.1:18846/cat.png)"
c media-url-unknown-host "$(img http://images.invalid/cat.png)"
c media-data-url-bad-base64 "$(img 'data:image/png;base64,notbase64!!')"
c media-file-url "$(img file:///tmp/re/www/ok.png)"
c media-two-images "{\"model\":\"$MODEL\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://127.0.0.1:18845/ok.png\"}},{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://127.0.0.1:18845/ok.png\"}}]}],\"max_tokens\":4}"
exit 0
