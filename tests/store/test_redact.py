import pytest

from bot.store.redact import redact, redact_obj

# Shaped like the real thing (prefix, alphabet, length), never real.
HF = "hf_QmVYkTzLpXcRwNbA7sD9fG2hJ4kL6zX8cV"
OPENAI = "sk-proj-T3BlbkFJx9Qw2Er4Ty6Ui8Op0AsDfGhJkLzXcVbNm12"
ANTHROPIC = "sk-ant-api03-Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9Dd8Ss7Aa6Qq5Ww4Ee3Rr-AbCdEf"
SLACK_BOT = "xoxb-2213987654321-6543210987654-Zq8Wx7Ec6Rv5Tb4Yn3Um2Ik1"
SLACK_APP = "xapp-1-A05QWERTY12-6543210987654-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
AWS_ID = "AKIAZ7QW3ERT5YUI8OPA"
AWS_SECRET = "u8Jk2Lm9Np4Qr7St1Uv6Wx3Yz5Ab0Cd8Ef2Gh4Ij"
GITHUB = "ghp_R4nD0mT0k3nV4lu3F0rT3st1ngOnly12345"
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2bGxtLWRvY3RvciJ9.c2lnbmF0dXJlLW5vdC1yZWFs"
DB_PASSWORD = "Sup3r-S3cret_pw"
PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0"


@pytest.mark.parametrize("text, secret, kind", [
    (f"HF_TOKEN={HF} vllm serve meta-llama/Llama-3.1-8B-Instruct", HF, "hf-token"),
    (f"huggingface-cli login --token {HF}", HF, "hf-token"),
    (f"export OPENAI_API_KEY={OPENAI}", OPENAI, "openai-key"),
    (f"client = Anthropic(api_key='{ANTHROPIC}')", ANTHROPIC, "anthropic-key"),
    (f"SLACK_BOT_TOKEN={SLACK_BOT}", SLACK_BOT, "slack-token"),
    (f"SLACK_APP_TOKEN={SLACK_APP}", SLACK_APP, "slack-token"),
    (f"aws_access_key_id = {AWS_ID}", AWS_ID, "aws-access-key"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "secret"),
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET} python serve.py", AWS_SECRET, "secret"),
    (f"git clone https://{GITHUB}@github.com/acme/models.git", GITHUB, "github-token"),
    (f"curl -H 'Authorization: Bearer {BEARER}' http://127.0.0.1:8000/v1/models", BEARER, "bearer"),
    (f"DATABASE_URL=postgresql://bot:{DB_PASSWORD}@db.internal:5432/vd", DB_PASSWORD, "url-password"),
    (f"vllm serve /models/q --api-key sk-local-{DB_PASSWORD}", DB_PASSWORD, None),
    (f"INFO non-default args: {{'model': '/m', 'api_key': 'k-{DB_PASSWORD}'}}", DB_PASSWORD, "secret"),
    (f'{{"password": "{DB_PASSWORD} with spaces"}}', DB_PASSWORD, "secret"),
    (f"Namespace(model='/m', hf_token='{DB_PASSWORD}', port=8000)", DB_PASSWORD, "secret"),
    # by name: names that do not end in a secret word, and the short words as a name's last part
    (f"MYSQL_PWD={DB_PASSWORD} mysql -h db -u root", DB_PASSWORD, "secret"),
    (f"export DB_PASS={DB_PASSWORD}", DB_PASSWORD, "secret"),
    (f"SMTP_PASSWD_PROD={DB_PASSWORD} ./send", DB_PASSWORD, "secret"),
    (f"mysqldump --db-pass {DB_PASSWORD} --mysql-pwd={DB_PASSWORD}", DB_PASSWORD, "secret"),
    # by shape: a URL password with unencoded `/`, `@`, `:` and `#`, or with no user at all
    (f"DATABASE_URL=postgresql://bot:{DB_PASSWORD}/x@y:z#1@db.internal:5432/vd", DB_PASSWORD, "url-password"),
    (f"REDIS_URL='redis://:{DB_PASSWORD}@w/rd@cache:6379/0'", DB_PASSWORD, "url-password"),
])
def test_each_kind_of_secret_is_masked(text, secret, kind):
    out = redact(text)
    assert secret not in out
    assert "[REDACTED:" in out
    if kind:
        assert f"[REDACTED:{kind}]" in out


def test_private_key_block_is_masked_and_lines_keep_their_numbers():
    text = ("before\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + PEM_BODY + "\n" + PEM_BODY[::-1] +
            "\n-----END OPENSSH PRIVATE KEY-----\nValueError: after")
    out = redact(text)
    assert PEM_BODY not in out and PEM_BODY[::-1] not in out
    assert out.count("\n") == text.count("\n")
    assert out.split("\n")[-1] == "ValueError: after"


def test_private_key_cut_short_by_the_paste_is_masked_to_the_end():
    out = redact("-----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY + "\n" + PEM_BODY[5:])
    assert PEM_BODY[5:] not in out


def test_words_that_only_look_like_secrets_are_kept():
    # These carry the diagnosis: a redactor that ate them would hide the cause.
    text = ("non-default args: {'max_num_batched_tokens': 8192, 'tokenizer': 'Qwen/Qwen2.5-7B', "
            "'skip_tokenizer_init': False, 'hf_token': None}\n"
            "pad_token_id=151643 max_tokens=512 --max-num-batched-tokens 4096\n"
            "Tried to allocate 20.00 MiB. Avg prompt throughput: 12.3 tokens/s\n"
            "[W409 11:42:27.776885251 ProcessGroupNCCL.cpp:1250] Warning: skid-mark")
    assert redact(text) == text


@pytest.mark.parametrize("text, masked", [
    ("postgresql://bot:pa/ss@wo@rd@db.internal:5432/vd", "postgresql://bot:[REDACTED:url-password]@db.internal:5432/vd"),
    ("redis://:p@ss/w@cache:6379/0", "redis://:[REDACTED:url-password]@cache:6379/0"),
    ('{"url": "https://u:a/b@c@h.example/x", "n": 1}', '{"url": "https://u:[REDACTED:url-password]@h.example/x", "n": 1}'),
])
def test_a_url_password_runs_to_the_last_at_sign_a_host_follows(text, masked):
    assert redact(text) == masked


@pytest.mark.parametrize("text", [
    "PWD=/home/me OLDPWD=/tmp SHLVL=1",                       # the shell's working directory
    "bypass=1 compass=north surpass: yes",                     # words that end in `pass`
    "Profiling forward pass: 1.2 s; backward pass = 0.8 s",   # `pass` as a word
    "GET http://127.0.0.1:8000/v1/models?notify=ops@example.com",   # a port, then an `@` in the query
    "--password-min-length",                                   # a flag without a value
])
def test_what_only_looks_like_a_password_is_kept(text):
    assert redact(text) == text


def test_redacting_twice_changes_nothing():
    text = f"HF_TOKEN={HF}\n'api_key': '{OPENAI}'\npassword={DB_PASSWORD}\nBearer {BEARER}"
    once = redact(text)
    assert redact(once) == once


def test_none_and_empty_pass_through():
    assert redact(None) is None
    assert redact("") == ""


def test_json_values_are_redacted_by_key_and_by_shape():
    value = {"api_key": "plain-looking-value", "hf_token": None, "max_tokens": 256,
             "env": {"HF_TOKEN": HF}, "args": ["--token", HF, f"sk={OPENAI}"], "model": "Qwen/Qwen2.5-7B"}
    out = redact_obj(value)
    text = repr(out)
    assert "plain-looking-value" not in text and HF not in text and OPENAI not in text
    assert out["hf_token"] is None and out["max_tokens"] == 256 and out["model"] == "Qwen/Qwen2.5-7B"


def test_json_keys_named_like_passwords_are_masked_and_the_working_directory_is_not():
    out = redact_obj({"MYSQL_PWD": "a-value", "db_pass": "b-value", "smtp_passwd_file": "c-value", "pass": "d-value",
                      "PWD": "/home/me", "bypass": "cache"})
    assert [k for k, v in out.items() if v == "[REDACTED:secret]"] == ["MYSQL_PWD", "db_pass", "smtp_passwd_file",
                                                                      "pass"]
    assert out["PWD"] == "/home/me" and out["bypass"] == "cache"


@pytest.mark.parametrize("text, masked", [
    ("export my.app-hf_token=abcdef123", "export my.app-hf_token=[REDACTED:secret]"),   # a key ends in the word
    ("secret_token=abcdef123", "secret_token=[REDACTED:secret]"),
    ("\u017fecret=abcdef123", "\u017fecret=[REDACTED:secret]"),                    # ſ is an s to re.IGNORECASE
    ("x\u212atoken: abcdef123", "x\u212atoken: [REDACTED:secret]"),                # so is the Kelvin sign to k
    ("curl -H 'Authorization: BEARER abcdefgh1234'", "curl -H 'Authorization: BEARER [REDACTED:bearer]'"),
    ("Author\u0131zation: Basic dXNlcjpwYXNz", "Author\u0131zation: Basic [REDACTED:basic-auth]"),
    ("max_num_batched_tokens=8192 tokenizer=/m pad_token_id=0", "max_num_batched_tokens=8192 tokenizer=/m pad_token_id=0"),
])
def test_keys_are_found_from_the_secret_word_they_end_in(text, masked):
    assert redact(text) == masked
