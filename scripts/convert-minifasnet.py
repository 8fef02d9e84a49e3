#!/usr/bin/python3
"""Converts the MiniFASNet anti-spoofing weights (PyTorch state dicts, Apache-2.0, see
../shared/models/minifasnet/SOURCE.md) into the files src/ml/liveness/minifasnet.ts reads:
models/minifasnet/<name>.json (tensor names, shapes, offsets) and <name>.bin (float32, little
endian). Run once with Debian's python3-torch:

    /usr/bin/python3 scripts/convert-minifasnet.py ../shared/models/minifasnet models/minifasnet

Every batch norm is folded into the convolution or matrix before it (inference only), and
tensors are laid out for TF.js: conv2d filters [kh, kw, in, out], depthwise filters
[kh, kw, channels, 1], matrices [in, out]. The script also runs the unfolded network (from the
raw state dict, with torch's functional ops) on a fixed input and writes the logits to
test/fixtures/minifasnet-parity.json, which the TF.js test compares against.
"""
import json
import os
import shutil
import sys

import torch
import torch.nn.functional as F

MODELS = {
    # file -> (our name, crop scale); the file name says the crop: 2.7 and 4.0 times the face box, 80x80.
    '2.7_80x80_MiniFASNetV2.pth': ('MiniFASNetV2', 2.7),
    '4_0_0_80x80_MiniFASNetV1SE.pth': ('MiniFASNetV1SE', 4.0),
}
EPS = 1e-5  # BatchNorm default


def load(path):
    state = torch.load(path, map_location='cpu')
    return {k[len('module.'):] if k.startswith('module.') else k: v.float() for k, v in state.items() if not k.endswith('num_batches_tracked')}


def bn_scale_shift(s, prefix):
    scale = s[prefix + '.weight'] / torch.sqrt(s[prefix + '.running_var'] + EPS)
    return scale, s[prefix + '.bias'] - s[prefix + '.running_mean'] * scale


def convert(s):
    """Folded tensors by name, in TF.js layouts."""
    out = {}
    for key in sorted(k for k in s if k.endswith('.conv.weight')):
        block = key[:-len('.conv.weight')]
        w = s[key]  # [out, in/groups, kh, kw]
        scale, shift = bn_scale_shift(s, block + '.bn')
        w = w * scale[:, None, None, None]
        if w.shape[1] == 1 and w.shape[0] > 1:  # depthwise: groups == channels
            out[block + '.depthwise'] = w.permute(2, 3, 0, 1).contiguous()  # [kh, kw, C, 1]
        else:
            out[block + '.filter'] = w.permute(2, 3, 1, 0).contiguous()  # [kh, kw, in, out]
        out[block + '.bias'] = shift
        if block + '.prelu.weight' in s:
            out[block + '.alpha'] = s[block + '.prelu.weight']
    for key in sorted(k for k in s if k.endswith('.se_module.fc1.weight')):
        se = key[:-len('.fc1.weight')]
        for fc, bn in (('fc1', 'bn1'), ('fc2', 'bn2')):
            scale, shift = bn_scale_shift(s, f'{se}.{bn}')
            m = s[f'{se}.{fc}.weight'][:, :, 0, 0] * scale[:, None]  # [out, in]
            out[f'{se}.{fc}.matrix'] = m.t().contiguous()
            out[f'{se}.{fc}.bias'] = shift
    scale, shift = bn_scale_shift(s, 'bn')
    out['linear.matrix'] = (s['linear.weight'] * scale[:, None]).t().contiguous()  # [512, 128]
    out['linear.bias'] = shift
    out['prob.matrix'] = s['prob.weight'].t().contiguous()  # [128, 3]
    return out


def reference(s, x):
    """The network unfolded, from the raw state dict: the figures the TF.js port must reproduce."""
    def block(x, p, stride, padding, act=True):
        w = s[p + '.conv.weight']
        groups = w.shape[0] if w.shape[1] == 1 and w.shape[0] > 1 else 1
        x = F.conv2d(x, w, stride=stride, padding=padding, groups=groups)
        x = F.batch_norm(x, s[p + '.bn.running_mean'], s[p + '.bn.running_var'], s[p + '.bn.weight'], s[p + '.bn.bias'], False, 0.0, EPS)
        return F.prelu(x, s[p + '.prelu.weight']) if act and p + '.prelu.weight' in s else x

    def se(x, p):
        y = x.mean(dim=(2, 3), keepdim=True)
        y = F.conv2d(y, s[p + '.fc1.weight'])
        y = F.relu(F.batch_norm(y, s[p + '.bn1.running_mean'], s[p + '.bn1.running_var'], s[p + '.bn1.weight'], s[p + '.bn1.bias'], False, 0.0, EPS))
        y = F.conv2d(y, s[p + '.fc2.weight'])
        y = torch.sigmoid(F.batch_norm(y, s[p + '.bn2.running_mean'], s[p + '.bn2.running_var'], s[p + '.bn2.weight'], s[p + '.bn2.bias'], False, 0.0, EPS))
        return x * y

    def depth_wise(x, p, stride, residual):
        y = block(x, p + '.conv', 1, 0)
        y = block(y, p + '.conv_dw', stride, 1)
        y = block(y, p + '.project', 1, 0)
        if p + '.se_module.fc1.weight' in s:
            y = se(y, p + '.se_module')
        return x + y if residual else y

    x = block(x, 'conv1', 2, 1)
    x = block(x, 'conv2_dw', 1, 1)
    for stage, blocks in (('conv_23', None), ('conv_3', 4), ('conv_34', None), ('conv_4', 6), ('conv_45', None), ('conv_5', 2)):
        if blocks is None:
            x = depth_wise(x, stage, 2, False)
        else:
            for i in range(blocks):
                x = depth_wise(x, f'{stage}.model.{i}', 1, True)
    x = block(x, 'conv_6_sep', 1, 0)
    x = block(x, 'conv_6_dw', 1, 0)
    x = x.flatten(1) @ s['linear.weight'].t()
    x = F.batch_norm(x, s['bn.running_mean'], s['bn.running_var'], s['bn.weight'], s['bn.bias'], False, 0.0, EPS)
    return x @ s['prob.weight'].t()


def parity_input():
    """A fixed 80x80 BGR input in 0..255 (NCHW), the same formula as the TF.js test builds."""
    c = torch.arange(3).view(3, 1, 1)
    i = torch.arange(80).view(1, 80, 1)
    j = torch.arange(80).view(1, 1, 80)
    return ((i * 7 + j * 13 + c * 29 + i * j) % 256).float().unsqueeze(0)


def main(source, target):
    os.makedirs(target, exist_ok=True)
    parity = {'input': '((y * 7 + x * 13 + c * 29 + y * x) % 256), c in BGR order, 80x80', 'logits': {}}
    for file, (name, scale) in MODELS.items():
        s = load(os.path.join(source, file))
        tensors = convert(s)
        manifest, offset, blobs = [], 0, []
        for key, t in tensors.items():
            data = t.numpy().astype('<f4').tobytes()
            manifest.append({'name': key, 'shape': list(t.shape), 'offset': offset})
            offset += len(data)
            blobs.append(data)
        with open(os.path.join(target, name + '.bin'), 'wb') as f:
            f.write(b''.join(blobs))
        with open(os.path.join(target, name + '.json'), 'w') as f:
            json.dump({'name': name, 'source': file, 'crop_scale': scale, 'input': [80, 80, 3], 'channels': 'BGR', 'range': [0, 255], 'tensors': manifest}, f)
        with torch.no_grad():
            parity['logits'][name] = [round(float(v), 5) for v in reference(s, parity_input())[0]]
    shutil.copy(os.path.join(source, 'LICENSE'), os.path.join(target, 'LICENSE'))
    fixtures = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures')
    os.makedirs(fixtures, exist_ok=True)
    with open(os.path.join(fixtures, 'minifasnet-parity.json'), 'w') as f:
        json.dump(parity, f, indent=1)
    print(json.dumps(parity['logits']))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
