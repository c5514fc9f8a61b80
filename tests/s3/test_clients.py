"""The command-line clients operators use, unchanged, against each target:
aws CLI v1 (pip) and v2 (Debian), s3cmd and rclone."""
import hashlib
import os
import shutil
import subprocess
import uuid

import pytest

MiB = 1024 * 1024
AWS_V1 = ["python3", "-m", "awscli"]
AWS_V2 = ["/usr/bin/aws"]


def run(cmd, env=None, input=None):
    full_env = dict(os.environ)
    full_env.pop("AWS_CA_BUNDLE", None)
    full_env.update(env or {})
    r = subprocess.run(cmd, env=full_env, input=input, capture_output=True, timeout=300)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout.decode()}\n{r.stderr.decode()}"
    return r.stdout


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def files(tmp_path):
    d = tmp_path / "tree"
    (d / "sub").mkdir(parents=True)
    (d / "small.txt").write_bytes(b"small file\n")
    (d / "sub" / "big.bin").write_bytes(os.urandom(21 * MiB + 3))
    (d / "sub" / "empty").write_bytes(b"")
    return d


def aws_env(tmp_path):
    cfg = tmp_path / "aws-config"
    cfg.write_text("[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n")
    return {
        "AWS_ACCESS_KEY_ID": os.environ["ALICE_AK"],
        "AWS_SECRET_ACCESS_KEY": os.environ["ALICE_SK"],
        "AWS_CONFIG_FILE": str(cfg),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
    }


@pytest.mark.parametrize("cli", [AWS_V1, AWS_V2], ids=["aws-cli-v1", "aws-cli-v2"])
def test_aws_cli(t, cli, files, tmp_path):
    env = aws_env(tmp_path)
    aws = cli + ["--endpoint-url", t.endpoint]
    bucket = f"cli-{uuid.uuid4().hex[:16]}"
    run(aws + ["s3", "mb", f"s3://{bucket}"], env)
    try:
        # 21 MiB goes up as a multipart upload (default threshold 8 MiB)
        run(aws + ["s3", "cp", str(files / "sub" / "big.bin"), f"s3://{bucket}/big.bin"], env)
        # a server-side copy above the threshold: UploadPartCopy, part by part
        run(aws + ["s3", "cp", f"s3://{bucket}/big.bin", f"s3://{bucket}/copy.bin"], env)
        run(aws + ["s3", "cp", f"s3://{bucket}/copy.bin", str(tmp_path / "copy.out")], env)
        assert sha(tmp_path / "copy.out") == sha(files / "sub" / "big.bin")
        run(aws + ["s3", "sync", str(files), f"s3://{bucket}/tree"], env)
        listing = run(aws + ["s3", "ls", "--recursive", f"s3://{bucket}/"], env).decode()
        for key in ["big.bin", "tree/small.txt", "tree/sub/big.bin", "tree/sub/empty"]:
            assert key in listing, listing
        out = tmp_path / "down"
        run(aws + ["s3", "cp", "--recursive", f"s3://{bucket}/tree", str(out)], env)
        for rel in ["small.txt", "sub/big.bin", "sub/empty"]:
            assert sha(out / rel) == sha(files / rel), rel
        head = run(aws + ["s3api", "head-object", "--bucket", bucket, "--key", "tree/small.txt"], env)
        assert b'"ContentLength": 11' in head
        assert run(aws + ["s3", "cp", f"s3://{bucket}/tree/small.txt", "-"], env) == b"small file\n"
        run(aws + ["s3", "rm", f"s3://{bucket}/big.bin"], env)
    finally:
        run(aws + ["s3", "rb", "--force", f"s3://{bucket}"], env)


def test_s3cmd(t, files, tmp_path):
    host = t.endpoint.removeprefix("http://")
    cfg = tmp_path / "s3cfg"
    cfg.write_text(
        "[default]\n"
        f"access_key = {os.environ['ALICE_AK']}\n"
        f"secret_key = {os.environ['ALICE_SK']}\n"
        f"host_base = {host}\nhost_bucket = {host}\n"
        "use_https = False\nsignature_v2 = False\nbucket_location = us-east-1\n"
        "multipart_chunk_size_mb = 5\n"
    )
    s3cmd = [shutil.which("s3cmd") or "s3cmd", "-c", str(cfg)]
    bucket = f"s3cmd-{uuid.uuid4().hex[:16]}"
    run(s3cmd + ["mb", f"s3://{bucket}"])
    try:
        run(s3cmd + ["put", str(files / "sub" / "big.bin"), f"s3://{bucket}/big.bin"])
        run(s3cmd + ["put", str(files / "small.txt"), f"s3://{bucket}/dir/small.txt"])
        listing = run(s3cmd + ["ls", "-r", f"s3://{bucket}"]).decode()
        assert "big.bin" in listing and "dir/small.txt" in listing, listing
        run(s3cmd + ["get", f"s3://{bucket}/big.bin", str(tmp_path / "big.out")])
        assert sha(tmp_path / "big.out") == sha(files / "sub" / "big.bin")
        info = run(s3cmd + ["info", f"s3://{bucket}/dir/small.txt"]).decode()
        assert "11" in info
        run(s3cmd + ["setacl", "--acl-public", f"s3://{bucket}/dir/small.txt"])
        run(s3cmd + ["del", "--recursive", "--force", f"s3://{bucket}"])
    finally:
        run(s3cmd + ["rb", f"s3://{bucket}"])


def test_rclone(t, files, tmp_path):
    env = {
        "RCLONE_CONFIG": str(tmp_path / "rclone.conf"),
        "RCLONE_CONFIG_T_TYPE": "s3",
        "RCLONE_CONFIG_T_PROVIDER": "Ceph",
        "RCLONE_CONFIG_T_ACCESS_KEY_ID": os.environ["ALICE_AK"],
        "RCLONE_CONFIG_T_SECRET_ACCESS_KEY": os.environ["ALICE_SK"],
        "RCLONE_CONFIG_T_ENDPOINT": t.endpoint,
        "RCLONE_CONFIG_T_FORCE_PATH_STYLE": "true",
        "RCLONE_CONFIG_T_REGION": "us-east-1",
    }
    rclone = [shutil.which("rclone") or "rclone", "--s3-upload-cutoff", "8M", "--s3-chunk-size", "5M"]
    bucket = f"rclone-{uuid.uuid4().hex[:16]}"
    run(rclone + ["mkdir", f"t:{bucket}"], env)
    try:
        run(rclone + ["copy", str(files), f"t:{bucket}/tree"], env)
        # check compares sizes and MD5s of both sides (multipart ETags aside)
        run(rclone + ["check", str(files), f"t:{bucket}/tree"], env)
        listing = run(rclone + ["lsf", "-R", f"t:{bucket}"], env).decode()
        assert "tree/sub/big.bin" in listing, listing
        run(rclone + ["copy", f"t:{bucket}/tree", str(tmp_path / "back")], env)
        assert sha(tmp_path / "back" / "sub" / "big.bin") == sha(files / "sub" / "big.bin")
    finally:
        run(rclone + ["purge", f"t:{bucket}"], env)
