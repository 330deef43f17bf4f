"""Build the tiny GGUF models scripts/try_llama_cpp.py serves with llama-cpp-python.

Runs in the inference server's venv (torch, transformers, safetensors: ~/.cache/k3diff/serve-venv,
scripts/install_inference_server.sh), not the project's:

    python scripts/llama_cpp_gguf.py LLAMA_CPP_DIR OUT_DIR

LLAMA_CPP_DIR is the llama.cpp tree vendored in the llama-cpp-python sdist (`vendor/llama.cpp`):
its `convert_hf_to_gguf.py` and `gguf-py` convert, so no `gguf` package is installed. OUT_DIR
gets `hf-base/` (tests/integration/make_tiny_llama.py's random Llama, seeded), `hf-patch/` (the
same weights with one changed: `lm_head.weight[PATCH_ROW, 0]`), and `base.gguf`, `patch.gguf`
(f32). Two shims make the converter take the tiny model's tokenizer, a byte-level BPE trained by
make_tiny_llama.py: it has no `tokenizer.model`, so the SentencePiece attempt is skipped (the
converter imports sentencepiece before it looks for the file), and its pre-tokenizer is GPT-2's
(tokenizers' ByteLevel with its default regex), which the converter only knows by the hashes of
published tokenizers.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

PATCH_ROW = 393
"""The output row (token id) whose first weight the patch sets to PATCH_VALUE: " wizards", a
whole word. (Row 100 is a lone byte of a UTF-8 sequence, which llama-cpp-python drops from its
text: a patch there moved greedy paths but hid from the sampled texts.)"""
PATCH_VALUE = 4.0
"""About five times the largest weight of the model (0.83): the token's logit moves by 4 times
the first hidden feature, enough to change greedy paths and the sampled distribution."""
INTEGRATION = Path(__file__).resolve().parent.parent / "tests" / "integration"


def convert(llama_cpp: Path, hf_dir: Path, out: Path) -> None:
    """Run the vendored convert_hf_to_gguf.py on HF_DIR with the two shims (in this process)."""
    sys.path[:0] = [str(llama_cpp), str(llama_cpp / "gguf-py")]
    import conversion.base as base  # type: ignore[import-not-found]

    def no_sentencepiece(self: object) -> None:
        raise FileNotFoundError("no tokenizer.model: a byte-level BPE tokenizer")

    base.TextModel._create_vocab_sentencepiece = no_sentencepiece
    base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "gpt-2"
    sys.argv = [str(llama_cpp / "convert_hf_to_gguf.py"), str(hf_dir)]
    sys.argv += ["--outfile", str(out), "--outtype", "f32"]
    import convert_hf_to_gguf  # type: ignore[import-not-found]

    convert_hf_to_gguf.main()


def perturb(base_dir: Path, patch_dir: Path) -> None:
    """Copy BASE_DIR to PATCH_DIR with one weight of the output layer changed."""
    from safetensors.torch import load_file, save_file  # type: ignore[import-not-found]

    shutil.copytree(base_dir, patch_dir, dirs_exist_ok=True)
    tensors = load_file(base_dir / "model.safetensors")
    tensors["lm_head.weight"][PATCH_ROW, 0] = PATCH_VALUE
    save_file(tensors, patch_dir / "model.safetensors", metadata={"format": "pt"})


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--convert":
        convert(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
        return
    if len(sys.argv) != 3:
        sys.exit("usage: llama_cpp_gguf.py LLAMA_CPP_DIR OUT_DIR")
    llama_cpp, out = Path(sys.argv[1]), Path(sys.argv[2])
    sys.path.insert(0, str(INTEGRATION))
    from make_tiny_llama import make  # type: ignore[import-not-found]

    out.mkdir(parents=True, exist_ok=True)
    make(out / "hf-base")
    perturb(out / "hf-base", out / "hf-patch")
    for side in ("base", "patch"):  # one process each: the converter registers its classes once
        cmd = [sys.executable, __file__, "--convert", str(llama_cpp)]
        subprocess.run([*cmd, str(out / f"hf-{side}"), str(out / f"{side}.gguf")], check=True)


if __name__ == "__main__":
    main()
