"""The container set-up, read as text (CI has no Docker daemon): what `docker run` relies on."""

import re
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def settings(text: str) -> dict[str, str]:
    """KEY=value lines that are not comments, as `docker run --env-file` reads them."""
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs if not k.lstrip().startswith("#")}


def test_env_file_does_not_move_the_database_off_the_volume() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ORCHARD_DB=/data/orchard.db" in dockerfile and 'VOLUME ["/data"]' in dockerfile
    example = settings((ROOT / ".env.example").read_text())
    assert "DISCORD_TOKEN" in example
    assert "ORCHARD_DB" not in example, "--env-file would override the image's /data path"


def test_every_variable_compose_reads_from_env_is_in_the_example() -> None:
    """compose.yaml takes ${VARIABLE} from .env: one missing from .env.example is a setting
    (the database's password) nobody finds until after its volume is made."""
    wanted = set(re.findall(r"\$\{([A-Z_]+)", (ROOT / "compose.yaml").read_text()))
    assert "POSTGRES_PASSWORD" in wanted
    example = (ROOT / ".env.example").read_text()
    assert [name for name in sorted(wanted) if f"{name}=" not in example] == []


def test_the_container_runs_as_a_user_who_owns_the_volume() -> None:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    assert any(line.startswith("USER ") and line != "USER root" for line in lines)
    assert any("chown orchard /data" in line for line in lines)


def dockerignored(path: str, rules: list[str]) -> bool:
    """Whether `docker build` leaves ``path`` out of the context: the last rule matching it or
    a folder above it wins, a ``!`` rule bringing it back (``**`` spans folders)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for rule in rules:
        pattern = rule.removeprefix("!")
        if any(fnmatch(p, pattern) or fnmatch(p, pattern.removeprefix("**/")) for p in prefixes):
            ignored = not rule.startswith("!")
    return ignored


def ignore_rules() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def instructions() -> list[str]:
    """The Dockerfile's instructions, each on one line (continued lines joined)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def copied() -> list[str]:
    """What the Dockerfile's COPY lines take from the build context."""
    lines = instructions()
    return [word for line in lines if line.startswith("COPY ") for word in line.split()[1:-1]]


def test_the_build_context_is_what_the_image_copies_and_never_the_token_or_the_venv() -> None:
    rules = ignore_rules()
    for kept in [*copied(), "bot/app.py", "db/migrations/001_games.sql"]:
        assert not dockerignored(kept, rules), kept
    for left in (
        ".venv/bin/python",
        ".git/HEAD",
        ".env",
        "data/orchard.db",
        "orchard.db-wal",
        ".pytest_cache/v/x",
        ".mypy_cache/x",
        ".ruff_cache/x",
        ".hypothesis/x",
        "bot/__pycache__/app.cpython-311.pyc",
        "bench/RESULTS.md",
        "tests/test_docker.py",
        "build/lib/bot/app.py",
        "orchard.egg-info/PKG-INFO",
    ):
        assert dockerignored(left, rules), left


def test_a_code_change_does_not_reinstall_the_dependencies() -> None:
    steps = [line for line in instructions() if line.split(" ", 1)[0] in ("COPY", "RUN")]
    deps = next(i for i, step in enumerate(steps) if "pip install" in step)
    assert "requirements" in steps[deps] and "--no-deps" not in steps[deps]
    assert [s for s in steps[:deps] if s.startswith("COPY ")] == ["COPY pyproject.toml ./"]
    later = [s for s in steps[deps + 1 :] if "pip install" in s]
    assert later and all("--no-deps" in s for s in later), "the source layer installs no deps"


def test_docker_checks_health_and_stops_the_bot_itself() -> None:
    lines = instructions()
    check = [line for line in lines if line.startswith("HEALTHCHECK ")]
    assert len(check) == 1 and check[0].endswith('CMD ["orchard", "health"]')
    assert 'CMD ["orchard"]' in lines, "exec form: orchard is PID 1 and gets SIGTERM itself"


def test_the_readme_runs_the_container_again_after_a_crash_and_warns_about_quotes() -> None:
    readme = (ROOT / "README.md").read_text()
    running = readme.split("## Running it", 1)[1].split("\n## ", 1)[0]
    run = [line for line in running.splitlines() if line.strip().startswith("docker run ")]
    assert run and all("--restart unless-stopped" in line for line in run)
    assert "quotes" in running and 'DISCORD_TOKEN="' in running
    assert "orchard clear-guild" in running and "DEV_GUILD_ID" in running
