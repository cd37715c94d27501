# A transformers-only script (no vLLM): apply_chat_template with a template given on the command line.
# Its Jinja errors are the negatives of chat-template-undefined / chat-template-syntax-error.
import sys
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained(sys.argv[1])
tpl = sys.argv[2]
print(tok.apply_chat_template([{"role": "user", "content": "hi"}], chat_template=tpl, tokenize=False))
