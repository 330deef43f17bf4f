"""Create a tiny random-weight Llama, with a BPE tokenizer trained here, for `transformers serve`.

Runs in the inference server's venv (scripts/install_inference_server.sh), not the project's:
`python make_tiny_llama.py OUT_DIR`. Nothing comes from a model hub. The options make a larger
model of the same kind (scripts/gpu_sweep.sh builds `--hidden 1024 --layers 8` on a GPU machine);
without them it is the suite's model, 64 wide and 2 layers deep. The weights are random but
seeded, so every run builds the same model; its outputs are gibberish, which is all the
determinism tests need: a wide, flat next-token distribution that makes sampling visible.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

CORPUS_WORDS = (
    "the quick brown fox jumps over a lazy dog while seven wizards box nimbly "
    "and engines sample tokens from logits at temperature zero or one with a seed "
    "kernels batch requests so numerics drift and near ties flip between runs"
)
SPECIAL_TOKENS = ["<unk>", "<s>", "</s>", "<pad>"]
# Enough for /v1/chat/completions to apply a template; the model never learned it.
CHAT_TEMPLATE = (
    "{% for message in messages %}<s>{{ message['role'] }}: {{ message['content'] }}</s>"
    "{% endfor %}{% if add_generation_prompt %}<s>assistant: {% endif %}"
)


def training_text() -> list[str]:
    """A small deterministic corpus: enough words for a few hundred BPE merges."""
    words = CORPUS_WORDS.split()
    return [" ".join(words[(i * 7 + j) % len(words)] for j in range(12)) for i in range(400)]


def train_tokenizer(vocab_size: int) -> PreTrainedTokenizerFast:
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(training_text(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def make(
    out: Path,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    init_range: float = 0.2,
) -> None:
    tokenizer = train_tokenizer(vocab_size=512)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        # Larger than the default 0.02 so the logits are not all near-equal: greedy decoding
        # then has clear winners instead of ties that any rounding could flip.
        initializer_range=init_range,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    # do_sample=True: without it transformers ignores the request's temperature.
    model.generation_config = GenerationConfig(
        do_sample=True,
        temperature=1.0,
        top_k=0,
        top_p=1.0,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def main() -> None:
    parser = argparse.ArgumentParser(description="Build a random-weight Llama into OUT_DIR.")
    parser.add_argument("out", type=Path, metavar="OUT_DIR")
    parser.add_argument("--hidden", type=int, default=64, help="hidden size (MLP: twice this)")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--init-range", type=float, default=0.2, help="std of the weights")
    args = parser.parse_args()
    make(args.out, args.hidden, args.layers, args.heads, args.kv_heads, args.init_range)


if __name__ == "__main__":
    main()
