"""default_client: the fake unless a key and the opt-in are both present; .env parsing; no key leaks."""
import anthropic
import pytest

from harness.clients import default_client, read_dotenv, uses_real_model

KEY = "sk-ant-" + "x" * 20  # a key-shaped dummy; never sent anywhere


@pytest.mark.parametrize("env, expected", [
    ({}, False),
    ({"ANTHROPIC_API_KEY": KEY}, False),
    ({"USE_REAL_MODEL": "1"}, False),
    ({"ANTHROPIC_API_KEY": KEY, "USE_REAL_MODEL": "1"}, True),
    ({"ANTHROPIC_API_KEY": KEY, "USE_REAL_MODEL": "yes"}, False),
    ({"ANTHROPIC_API_KEY": "", "USE_REAL_MODEL": "1"}, False),
])
def test_real_model_needs_key_and_opt_in(env, expected, tmp_path):
    assert uses_real_model(env, dotenv=tmp_path / "missing.env") is expected


def test_dotenv_supplies_missing_settings_and_environment_wins(tmp_path):
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"# comment\nexport ANTHROPIC_API_KEY='{KEY}'\n\nUSE_REAL_MODEL=\"1\"\n")
    assert read_dotenv(dotenv) == {"ANTHROPIC_API_KEY": KEY, "USE_REAL_MODEL": "1"}
    assert uses_real_model({}, dotenv=dotenv) is True
    assert uses_real_model({"USE_REAL_MODEL": "0"}, dotenv=dotenv) is False


def test_default_client_is_the_fake_offline(tmp_path):
    client = default_client({}, dotenv=tmp_path / "missing.env")
    reply = client.messages.create(model="claude-haiku-4-5", max_tokens=64,
                                   messages=[{"role": "user", "content": "What did I tell you about tools/?"}])
    assert isinstance(reply, anthropic.types.Message)
    assert "tools/" in reply.content[0].text


def test_default_client_is_real_when_opted_in_and_never_shows_the_key(tmp_path):
    client = default_client({"ANTHROPIC_API_KEY": KEY, "USE_REAL_MODEL": "1"}, dotenv=tmp_path / "missing.env")
    assert isinstance(client, anthropic.Anthropic)
    assert client.api_key == KEY
    assert KEY not in repr(client) and KEY not in str(client)
