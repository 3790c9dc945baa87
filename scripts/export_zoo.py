#!/usr/bin/python3
"""export_zoo.py - more real architectures for `make test-models-zoo` (issue 20, item 5).

Extends ../shared/models/export_models.py (whose export_one writes the files) with models that
between them cover the op families the first five do not: explicit Pad, dense and inception
blocks, grouped and shuffled channels, HardSwish, windowed and plain vision transformers,
segmentation heads with bilinear Resize, 3-D convolution, bidirectional multi-layer LSTM and
GRU, an encoder-decoder transformer, a Conv1d/GroupNorm audio encoder, a U-Net with
ConvTranspose, super-resolution with DepthToSpace and style transfer with reflection Pad and
InstanceNormalization, and a detector whose post-processing is in the graph (TopK, NonZero,
NonMaxSuppression, RoiAlign).

Random weights (weights=None) from a fixed seed; torchvision's constructors where torchvision
has the architecture, small PyTorch modules written here otherwise. Every input and output has
a dynamic batch axis ('batch'); every other dim is static.

usage: export_zoo.py OUT_DIR [--opsets 13,17] [--only name1,name2] [--threads N] [--list]

Writes OUT_DIR/<name>-op<opset>/{model.onnx,input_*.npy,output_*.npy,meta.json} and
OUT_DIR/export_summary.json, as export_models.py does.

Needs Debian's python3-torch, python3-torchvision and python3-onnx; run with /usr/bin/python3.
"""
import argparse
import importlib.util
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("TESSEL_SHARED_MODELS",
                        os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "models"))


def _load_base():
    path = os.path.join(SHARED, "export_models.py")
    spec = importlib.util.spec_from_file_location("tessel_shared_export_models", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------ modules written here
class PadNet(nn.Module):
    """A CNN whose padding is all explicit Pad nodes: TF-style 'same' padding (asymmetric for
    stride 2), reflection and replication pads, and a constant pad with a non-zero value."""

    def __init__(self, classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, stride=2)
        self.c2 = nn.Conv2d(16, 32, 3)
        self.c3 = nn.Conv2d(32, 32, 5, groups=4)
        self.c4 = nn.Conv2d(32, 64, 3, stride=2)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = F.relu(self.c1(F.pad(x, (0, 1, 0, 1))))           # 'same' for stride 2: pad after only
        x = F.relu(self.c2(F.pad(x, (1, 1, 1, 1), mode="reflect")))
        x = F.relu(self.c3(F.pad(x, (2, 2, 2, 2), mode="replicate")))
        x = F.relu(self.c4(F.pad(x, (1, 0, 2, 1), value=0.5)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SeqClassifier(nn.Module):
    """A bidirectional multi-layer recurrent encoder (batch first) with a linear head on every
    step and on the final hidden states."""

    def __init__(self, cell, features=40, hidden=64, layers=2, classes=12):
        super().__init__()
        self.rnn = cell(features, hidden, num_layers=layers, bidirectional=True, batch_first=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        y, state = self.rnn(x)
        h = state[0] if isinstance(state, tuple) else state      # [layers*2, batch, hidden]
        last = torch.cat([h[-2], h[-1]], dim=1)
        return self.head(y), self.head(last)


class Seq2Seq(nn.Module):
    """An encoder-decoder transformer (nn.Transformer, post-LN, ReLU) with token and learned
    position embeddings, a causal decoder mask built in the graph and a source padding mask."""

    def __init__(self, vocab=1000, d=128, heads=4, layers=2, ffn=256, src_len=24, tgt_len=16):
        super().__init__()
        self.src_tok = nn.Embedding(vocab, d)
        self.tgt_tok = nn.Embedding(vocab, d)
        self.src_pos = nn.Parameter(torch.randn(1, src_len, d) * 0.02)
        self.tgt_pos = nn.Parameter(torch.randn(1, tgt_len, d) * 0.02)
        self.tf = nn.Transformer(d, heads, layers, layers, ffn, dropout=0.0, batch_first=True)
        # torch 1.13's encoder would otherwise drop padded positions (a nested tensor), which
        # the exporter traces as a fixed length.
        self.tf.encoder.enable_nested_tensor = False
        self.out = nn.Linear(d, vocab)

    def forward(self, src_ids, tgt_ids, src_mask):
        t = tgt_ids.shape[1]
        # Above the diagonal -inf (torch.triu has no ONNX export before opset 14).
        pos = torch.arange(t)
        causal = torch.zeros(t, t).masked_fill(pos.unsqueeze(0) > pos.unsqueeze(1), float("-inf"))
        y = self.tf(self.src_tok(src_ids) + self.src_pos, self.tgt_tok(tgt_ids) + self.tgt_pos,
                    tgt_mask=causal, src_key_padding_mask=src_mask == 0,
                    memory_key_padding_mask=src_mask == 0)
        return self.out(y)


class AudioEncoder(nn.Module):
    """A wav2vec2-style feature encoder: strided Conv1d stack (GroupNorm on the first, GELU),
    LayerNorm, a projection and two transformer layers over the frames."""

    def __init__(self, d=128):
        super().__init__()
        spec = [(1, 64, 10, 5), (64, 64, 3, 2), (64, 64, 3, 2), (64, 64, 3, 2), (64, 64, 2, 2)]
        self.convs = nn.ModuleList([nn.Conv1d(i, o, k, s, bias=False) for i, o, k, s in spec])
        self.gn = nn.GroupNorm(64, 64)
        self.ln = nn.LayerNorm(64)
        self.proj = nn.Linear(64, d)
        layer = nn.TransformerEncoderLayer(d, 4, 256, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, wave):
        x = wave.unsqueeze(1)
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if i == 0:
                x = self.gn(x)
            x = F.gelu(x)
        x = self.proj(self.ln(x.transpose(1, 2)))
        return self.enc(x)


def _double_conv(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """A three-level U-Net: max-pool down, ConvTranspose (2x2, stride 2) up, skip concatenation."""

    def __init__(self, cin=3, classes=4, w=16):
        super().__init__()
        self.d1, self.d2, self.d3 = _double_conv(cin, w), _double_conv(w, 2 * w), _double_conv(2 * w, 4 * w)
        self.mid = _double_conv(4 * w, 8 * w)
        self.u3 = nn.ConvTranspose2d(8 * w, 4 * w, 2, stride=2)
        self.c3 = _double_conv(8 * w, 4 * w)
        self.u2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.c2 = _double_conv(4 * w, 2 * w)
        self.u1 = nn.ConvTranspose2d(2 * w, w, 2, stride=2)
        self.c1 = _double_conv(2 * w, w)
        self.head = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        c = self.d3(F.max_pool2d(b, 2))
        m = self.mid(F.max_pool2d(c, 2))
        y = self.c3(torch.cat([self.u3(m), c], 1))
        y = self.c2(torch.cat([self.u2(y), b], 1))
        y = self.c1(torch.cat([self.u1(y), a], 1))
        return self.head(y)


class ESPCN(nn.Module):
    """Efficient sub-pixel super-resolution (x3): tanh convs, then PixelShuffle (DepthToSpace)."""

    def __init__(self, scale=3, channels=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, 64, 5, padding=2), nn.Tanh(),
                                  nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(32, channels * scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return torch.sigmoid(self.shuffle(self.body(x)))


class _ConvIN(nn.Module):
    def __init__(self, i, o, k, stride=1, relu=True, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.pad = nn.ReflectionPad2d(k // 2)
        self.conv = nn.Conv2d(i, o, k, stride)
        self.norm = nn.InstanceNorm2d(o, affine=True)
        self.relu = relu

    def forward(self, x):
        if self.upsample:
            x = F.interpolate(x, scale_factor=self.upsample, mode="nearest")
        x = self.norm(self.conv(self.pad(x)))
        return F.relu(x) if self.relu else x


class StyleTransfer(nn.Module):
    """Johnson et al.'s fast style transfer network (narrowed): reflection-padded convs with
    InstanceNorm, residual blocks, nearest upsampling."""

    def __init__(self, w=16, blocks=3):
        super().__init__()
        self.down = nn.Sequential(_ConvIN(3, w, 9), _ConvIN(w, 2 * w, 3, 2), _ConvIN(2 * w, 4 * w, 3, 2))
        self.res = nn.ModuleList([nn.Sequential(_ConvIN(4 * w, 4 * w, 3), _ConvIN(4 * w, 4 * w, 3, relu=False))
                                  for _ in range(blocks)])
        self.up = nn.Sequential(_ConvIN(4 * w, 2 * w, 3, upsample=2), _ConvIN(2 * w, w, 3, upsample=2))
        self.pad = nn.ReflectionPad2d(4)
        self.out = nn.Conv2d(w, 3, 9)

    def forward(self, x):
        x = self.down(x)
        for r in self.res:
            x = x + r(x)
        return self.out(self.pad(self.up(x)))


class TinyDetector(nn.Module):
    """A one-stage detector with its post-processing in the graph, then a
    second stage on the kept boxes: a strided conv backbone, per-anchor class
    scores and box deltas, decoding against fixed anchors, the best class per
    anchor, the top 48 anchors per image (TopK), a score threshold (NonZero),
    class- and image-aware NMS over the whole batch (NonMaxSuppression, boxes
    offset per image and class), and RoiAlign of the kept boxes for a
    refined score. Outputs: boxes, scores, labels, image index, refined
    scores, one row per kept box."""

    def __init__(self, classes=5, anchors=3, width=32, top=48):
        super().__init__()
        self.classes, self.anchors, self.top = classes, anchors, top
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 3, 2, 1), nn.ReLU(), nn.Conv2d(width, width, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(width, width, 3, 2, 1), nn.ReLU())
        self.cls = nn.Conv2d(width, anchors * classes, 3, padding=1)
        self.box = nn.Conv2d(width, anchors * 4, 3, padding=1)
        self.refine = nn.Linear(width * 4 * 4, 1)
        cells = torch.arange(8, dtype=torch.float32) * 8 + 4
        cy, cx = torch.meshgrid(cells, cells, indexing="ij")
        sizes = torch.tensor([8.0, 16.0, 32.0])
        a = torch.stack([cx[..., None].expand(8, 8, anchors), cy[..., None].expand(8, 8, anchors),
                         sizes.expand(8, 8, anchors), sizes.expand(8, 8, anchors)], -1)
        self.register_buffer("anchor", a.reshape(-1, 4), persistent=False)  # [M, 4] cx cy w h

    def forward(self, x):
        f = self.backbone(x)                                          # [B, W, 8, 8]
        b = f.shape[0]
        scores = torch.sigmoid(self.cls(f)).permute(0, 2, 3, 1).reshape(b, -1, self.classes)
        d = self.box(f).permute(0, 2, 3, 1).reshape(b, -1, 4) * 0.1
        cxcy = self.anchor[:, :2] + d[..., :2] * self.anchor[:, 2:]
        wh = self.anchor[:, 2:] * torch.exp(d[..., 2:])
        boxes = torch.cat([cxcy - wh / 2, cxcy + wh / 2], -1)         # [B, M, 4] x1 y1 x2 y2
        best, labels = scores.max(-1)                                 # [B, M]
        top, idx = best.topk(self.top, dim=1)                         # [B, K]
        boxes = torch.gather(boxes, 1, idx.unsqueeze(-1).expand(-1, -1, 4)).reshape(-1, 4)
        labels = torch.gather(labels, 1, idx).reshape(-1)
        image = torch.arange(b).unsqueeze(1).expand(-1, self.top).reshape(-1)
        top = top.reshape(-1)
        keep = torch.nonzero(top > 0.45).squeeze(1)
        boxes, top, labels, image = boxes[keep], top[keep], labels[keep], image[keep]
        offset = (image * self.classes + labels).to(boxes.dtype).unsqueeze(1) * 100.0
        kept = torchvision.ops.nms(boxes + offset, top, 0.4)
        boxes, top, labels, image = boxes[kept], top[kept], labels[kept], image[kept]
        rois = torch.cat([image.to(boxes.dtype).unsqueeze(1), boxes], 1)
        pooled = torchvision.ops.roi_align(f, rois, output_size=4, spatial_scale=1 / 8.0,
                                           sampling_ratio=2, aligned=False)
        refined = torch.sigmoid(self.refine(pooled.flatten(1))).squeeze(1)
        return boxes, top, labels, image, refined


# ------------------------------------------------------------------ registry
def _tv(ctor, **kw):
    def make():
        return ctor(weights=None, **kw)
    return make


def _fan_in(make):
    """`make`, with every Conv and Linear weight redrawn He-normal: the
    constructor's own random init (GoogLeNet's truncated normal of std 0.01,
    ViT's zero head) makes activations vanish or outputs constant, which
    would compare nothing."""
    def build():
        model = make()
        for mod in model.modules():
            if isinstance(mod, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(mod.weight, nonlinearity="relu")
        return model
    return build


def _seg(ctor):
    def make():
        return ctor(weights=None, weights_backbone=None, num_classes=21, aux_loss=False)
    return make


class _FirstOutput(nn.Module):
    """torchvision's segmentation models return {'out': ...}; the export takes the tensor."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x)["out"]


def _wrap_out(make):
    return lambda: _FirstOutput(make())


def _rand(*shape, gen_seed=1):
    g = torch.Generator().manual_seed(gen_seed)
    return lambda: (torch.rand(*shape, generator=g),)


def _seq2seq_inputs():
    g = torch.Generator().manual_seed(1)
    src = torch.randint(0, 1000, (1, 24), generator=g)
    tgt = torch.randint(0, 1000, (1, 16), generator=g)
    mask = torch.ones(1, 24, dtype=torch.int64)
    mask[:, 20:] = 0
    return src, tgt, mask


M = torchvision.models
ZOO = {
    # name: (constructor, example inputs, input names, output names)
    "densenet121": (_tv(M.densenet121), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "googlenet": (_fan_in(_tv(M.googlenet, aux_logits=False, init_weights=True)),
                  _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "shufflenet_v2_x1_0": (_tv(M.shufflenet_v2_x1_0), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "regnet_y_400mf": (_tv(M.regnet_y_400mf), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "mobilenet_v3_small": (_tv(M.mobilenet_v3_small), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "efficientnet_b0": (_tv(M.efficientnet_b0), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "padnet": (PadNet, _rand(1, 3, 64, 64), ["input"], ["logits"]),
    "swin_tiny_w7": (lambda: M.swin_transformer.SwinTransformer(
        patch_size=[4, 4], embed_dim=48, depths=[2, 2, 2], num_heads=[3, 6, 12], window_size=[7, 7],
        stochastic_depth_prob=0.0, num_classes=100), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "vit_tiny_p16": (_fan_in(lambda: M.vision_transformer.VisionTransformer(
        image_size=224, patch_size=16, num_layers=4, num_heads=4, hidden_dim=128, mlp_dim=512,
        num_classes=100)), _rand(1, 3, 224, 224), ["input"], ["logits"]),
    "deeplabv3_mobilenet_v3": (_wrap_out(_seg(M.segmentation.deeplabv3_mobilenet_v3_large)),
                               _rand(1, 3, 224, 224), ["input"], ["out"]),
    "lraspp_mobilenet_v3": (_wrap_out(lambda: M.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=21)), _rand(1, 3, 224, 224), ["input"], ["out"]),
    "r3d_18": (_tv(M.video.r3d_18, num_classes=50), _rand(1, 3, 8, 64, 64), ["clip"], ["logits"]),
    "lstm_bi2": (lambda: SeqClassifier(nn.LSTM), _rand(1, 32, 40), ["features"], ["per_step", "last"]),
    "gru_bi2": (lambda: SeqClassifier(nn.GRU), _rand(1, 32, 40), ["features"], ["per_step", "last"]),
    "seq2seq_transformer": (Seq2Seq, _seq2seq_inputs, ["src_ids", "tgt_ids", "src_mask"], ["logits"]),
    "audio_encoder": (AudioEncoder, _rand(1, 8000), ["wave"], ["frames"]),
    "unet": (UNet, _rand(1, 3, 96, 96), ["input"], ["mask_logits"]),
    "espcn_x3": (ESPCN, _rand(1, 3, 64, 64), ["input"], ["upscaled"]),
    "style_transfer": (StyleTransfer, _rand(1, 3, 128, 128), ["input"], ["stylized"]),
    "tiny_detector": (TinyDetector, _rand(1, 3, 64, 64), ["image"],
                      ["boxes", "scores", "labels", "image_index", "refined"]),
}

# Outputs whose first dim is not the batch: its name in the export.
OUTPUT_ROWS = {"tiny_detector": "detections"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print the model names and exit")
    a = ap.parse_args()
    if a.list:
        print("\n".join(ZOO))
        return 0
    if not a.out:
        ap.error("OUT_DIR is required")
    unknown = [n for n in a.only.split(",") if n and n not in ZOO]
    if unknown:
        ap.error("unknown model(s): %s" % ", ".join(unknown))
    base = _load_base()
    base.MODELS.clear()
    base.MODELS.update(ZOO)
    args = [a.out, "--opsets", a.opsets, "--threads", str(a.threads)]
    if a.only:
        args += ["--only", a.only]
    sys.argv = [sys.argv[0]] + args
    status = base.main()
    # export_one names every output's first dim 'batch'; a detector's rows
    # are its detections, as many as survive, not the batch.
    for name, dim in OUTPUT_ROWS.items():
        for opset in a.opsets.split(","):
            path = os.path.join(a.out, "%s-op%s" % (name, opset), "model.onnx")
            if (a.only and name not in a.only.split(",")) or not os.path.isfile(path):
                continue
            m = onnx.load(path)
            for out in m.graph.output:
                out.type.tensor_type.shape.dim[0].dim_param = dim
            onnx.checker.check_model(m)
            onnx.save(m, path)
    return status


if __name__ == "__main__":
    sys.exit(main())
