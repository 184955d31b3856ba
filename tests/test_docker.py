"""The container set-up, read as text (CI has no Docker daemon): what `docker run` relies on."""

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


def test_the_container_runs_as_a_user_who_owns_the_volume() -> None:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    assert any(line.startswith("USER ") and line != "USER root" for line in lines)
    assert any("chown orchard /data" in line for line in lines)
