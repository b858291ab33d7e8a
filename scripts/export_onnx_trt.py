#!/usr/bin/env python3
"""Export the image tower of a CLIP / SigLIP model to ONNX and build a TensorRT engine from it.

Run on the robot that will use the engine (an engine only runs on the GPU model
and TensorRT version that built it):

    python scripts/export_onnx_trt.py --family clip --model openai/clip-vit-base-patch32 --out-dir ~/engines/clip

then set ``embedder.engine_path: ~/engines/clip/vision.plan`` (same ``embedder.model``:
the text tower and the image preprocessing still come from it).  Needs torch,
transformers and onnx; the engine step needs TensorRT's ``trtexec`` on PATH
(or ``--trtexec``).  ``--onnx-only`` stops after the export.  The engine has a
dynamic batch axis 1..--max-batch, float32 inputs and outputs, and fp16 kernels
unless ``--no-fp16``.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from vidmem_ros.perception.tensorrt import INPUT_NAME, export_vision_onnx, trtexec_command


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=("clip", "siglip"), default="clip", help="same as embedder.backend")
    parser.add_argument("--model", required=True, help="hub id or local directory, same as embedder.model")
    parser.add_argument("--out-dir", type=Path, required=True, help="where vision.onnx and vision.plan go")
    parser.add_argument("--opset", type=int, default=17, help="ONNX opset (17 has LayerNormalization)")
    parser.add_argument(
        "--max-batch", type=int, default=16, help="largest batch the engine accepts (embedder.batch_size)"
    )
    parser.add_argument("--no-fp16", action="store_true", help="build float32 kernels only")
    parser.add_argument("--trtexec", default="trtexec", help="path of TensorRT's trtexec")
    parser.add_argument("--onnx-only", action="store_true", help="export ONNX, skip the engine build")
    return parser.parse_args(argv)


def load_model(family: str, model: str) -> Any:
    import transformers

    model_class = transformers.CLIPModel if family == "clip" else transformers.SiglipModel
    return model_class.from_pretrained(model).float().eval()


def check_with_onnxruntime(model: Any, onnx_path: Path, image_size: int) -> float | None:
    """Largest absolute difference between torch and onnxruntime on random pixels; None without onnxruntime."""
    try:
        import onnxruntime
    except ImportError:
        return None
    import numpy as np
    import torch

    from vidmem_ros.perception.hf_clip import pooled

    pixels = torch.randn(2, 3, image_size, image_size)
    with torch.inference_mode():
        expected = pooled(model.get_image_features(pixel_values=pixels)).numpy()
    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {INPUT_NAME: pixels.numpy()})
    return float(np.abs(got - expected).max())


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    model = load_model(args.family, args.model)
    image_size = int(model.config.vision_config.image_size)
    onnx_path = export_vision_onnx(model, args.out_dir.expanduser() / "vision.onnx", image_size, args.opset)
    print(f"exported {onnx_path}")
    difference = check_with_onnxruntime(model, onnx_path, image_size)
    if difference is not None:
        print(f"onnxruntime vs torch: max abs difference {difference:.2e}")
    if args.onnx_only:
        return 0
    engine_path = onnx_path.with_name("vision.plan")
    command = trtexec_command(onnx_path, engine_path, image_size, args.max_batch, not args.no_fp16, args.trtexec)
    print("running", shlex.join(command))
    try:
        subprocess.run(command, check=True)
    except FileNotFoundError:
        print(f"{args.trtexec} not found: install TensorRT or pass --trtexec PATH", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as exc:
        print(f"trtexec failed with status {exc.returncode}", file=sys.stderr)
        return 1
    print(f"built {engine_path}; set embedder.engine_path: {engine_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
