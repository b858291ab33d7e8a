"""TensorRT engines for the image tower of CLIP / SigLIP, and the ONNX export they are built from.

The engine is built on the robot (engines are specific to the GPU and the
TensorRT version) by ``scripts/export_onnx_trt.py``: torch.onnx export of the
vision tower plus its projection, then ``trtexec``.  At run time the engine
takes the pixel values the model's own image processor produced, so the
preprocessing stays the one the model was trained with.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import torch

from vidmem_ros.config import EmbedderConfig
from vidmem_ros.errors import ModelUnavailableError
from vidmem_ros.perception.hf_clip import pooled

log = logging.getLogger(__name__)

INPUT_NAME = "pixel_values"
OUTPUT_NAME = "image_embeds"
BUILD_HINT = (
    "build one on the robot with `python scripts/export_onnx_trt.py --family {family} --model {model} "
    "--out-dir DIR` (needs torch, onnx and TensorRT's trtexec) and set embedder.engine_path to DIR/vision.plan, "
    "or set embedder.engine_path to an empty string to run the image tower in torch"
)


class VisionTower(torch.nn.Module):
    """pixel_values -> projected (not normalised) image features, the graph exported to ONNX."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        return pooled(self.model.get_image_features(pixel_values=pixel_values))


def export_vision_onnx(model: Any, path: Path, image_size: int, opset: int = 17) -> Path:
    """Export the image tower with a dynamic batch axis; needs the ``onnx`` package (torch.onnx writes with it).

    The model is cast to float32 in place: trtexec chooses fp16 kernels itself, from a float32 graph.
    """
    tower = VisionTower(model.float().eval())
    example = torch.zeros(1, 3, image_size, image_size, device=next(model.parameters()).device)
    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.inference_mode():
        torch.onnx.export(
            tower,
            (example,),
            str(path),
            input_names=[INPUT_NAME],
            output_names=[OUTPUT_NAME],
            dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}},
            opset_version=opset,
            dynamo=False,  # the TorchScript exporter needs no onnxscript and gives trtexec a plain static graph
        )
    return path


def trtexec_command(
    onnx_path: Path, engine_path: Path, image_size: int, max_batch: int, fp16: bool = True, trtexec: str = "trtexec"
) -> list[str]:
    """trtexec flags: dynamic batch 1..max_batch (optimised for max_batch), fp16 kernels where allowed."""
    shape = f"3x{image_size}x{image_size}"
    command = [
        trtexec,
        f"--onnx={onnx_path}",
        f"--saveEngine={engine_path}",
        f"--minShapes={INPUT_NAME}:1x{shape}",
        f"--optShapes={INPUT_NAME}:{max_batch}x{shape}",
        f"--maxShapes={INPUT_NAME}:{max_batch}x{shape}",
    ]
    if fp16:
        command.append("--fp16")
    return command


class TensorRtImageEncoder:
    """Runs a serialized TensorRT engine on CUDA torch tensors (no pycuda / cuda-python needed)."""

    def __init__(self, config: EmbedderConfig) -> None:
        hint = BUILD_HINT.format(family=config.backend, model=config.model or "MODEL")
        path = Path(config.engine_path).expanduser()
        if not path.is_file():
            raise ModelUnavailableError(f"embedder.engine_path={config.engine_path} is not a file; {hint}")
        if not config.device.startswith("cuda") or not torch.cuda.is_available():
            raise ModelUnavailableError(
                f"embedder.engine_path is set but embedder.device={config.device} (CUDA available: "
                f"{torch.cuda.is_available()}); TensorRT engines run on a CUDA device only. Set embedder.device: cuda "
                "on a GPU machine, or set embedder.engine_path to an empty string"
            )
        try:
            import tensorrt as trt
        except ImportError as exc:
            raise ModelUnavailableError(
                "embedder.engine_path is set but the tensorrt Python package is missing; install it "
                "(pip install tensorrt, matching the version that built the engine) or set embedder.engine_path "
                "to an empty string"
            ) from exc
        self._trt = trt
        self._device = torch.device(config.device)
        self._engine = self._deserialize(trt, path, hint)
        self._context = self._engine.create_execution_context()
        self.max_batch = int(self._engine.get_tensor_profile_shape(INPUT_NAME, 0)[2][0])
        if config.batch_size > self.max_batch:
            raise ModelUnavailableError(
                f"embedder.batch_size={config.batch_size} exceeds the engine's largest batch {self.max_batch}; "
                f"lower embedder.batch_size or rebuild the engine with --max-batch {config.batch_size}"
            )
        self._input_dtype = _torch_dtype(trt, self._engine.get_tensor_dtype(INPUT_NAME))
        self._output_dtype = _torch_dtype(trt, self._engine.get_tensor_dtype(OUTPUT_NAME))
        log.info("TensorRT image engine %s loaded on %s", path, self._device)

    def _deserialize(self, trt: Any, path: Path, hint: str) -> Any:
        runtime = trt.Runtime(trt.Logger(trt.Logger.WARNING))
        with torch.cuda.device(self._device):
            engine = runtime.deserialize_cuda_engine(path.read_bytes())
        if engine is None:  # built by another TensorRT version or for another GPU
            raise ModelUnavailableError(f"embedder.engine_path={path} does not load with this TensorRT/GPU; {hint}")
        names = {engine.get_tensor_name(i) for i in range(engine.num_io_tensors)}
        if names != {INPUT_NAME, OUTPUT_NAME}:
            raise ModelUnavailableError(
                f"embedder.engine_path={path} has tensors {sorted(names)}, not {INPUT_NAME} -> {OUTPUT_NAME}; {hint}"
            )
        return engine

    def __call__(self, pixel_values: torch.Tensor) -> torch.Tensor:
        """pixel_values (N, 3, S, S) on any device -> (N, D) projected features on the engine's device."""
        pixels = pixel_values.to(self._device, self._input_dtype).contiguous()
        if not self._context.set_input_shape(INPUT_NAME, tuple(pixels.shape)):
            raise ModelUnavailableError(
                f"embedder.engine_path: input {tuple(pixels.shape)} is outside the engine's optimisation profile; "
                "rebuild the engine for this embedder.model (its image size) and embedder.batch_size"
            )
        out_shape = tuple(self._context.get_tensor_shape(OUTPUT_NAME))
        output = torch.empty(out_shape, dtype=self._output_dtype, device=self._device)
        self._context.set_tensor_address(INPUT_NAME, pixels.data_ptr())
        self._context.set_tensor_address(OUTPUT_NAME, output.data_ptr())
        stream = torch.cuda.current_stream(self._device)
        if not self._context.execute_async_v3(stream.cuda_stream):
            raise RuntimeError("TensorRT execution failed (see the TensorRT log above)")
        stream.synchronize()
        return output


def _torch_dtype(trt: Any, dtype: Any) -> torch.dtype:
    table = {trt.float32: torch.float32, trt.float16: torch.float16}
    if dtype not in table:
        raise ModelUnavailableError(f"embedder.engine_path: unsupported engine output type {dtype}")
    return table[dtype]
