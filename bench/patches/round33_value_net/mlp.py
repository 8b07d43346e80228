"""A small MLP in numpy (ReLU hidden layers, a logit out), trained by Adam on the cross-entropy
against labels in [0, 1]. Its weights are saved as W1.., b1.. (np.savez order) for set_net."""
import numpy as np


class MLP:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.W = [rng.normal(0, np.sqrt(2 / a), (a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
        self.b = [np.zeros(b, np.float32) for b in sizes[1:]]
        self.m = [np.zeros_like(p) for p in self.W + self.b]
        self.v = [np.zeros_like(p) for p in self.W + self.b]
        self.t = 0

    @classmethod
    def read(cls, path):
        from common import net_arrays
        arrays = net_arrays(path)
        net = cls([1, 1])
        net.W, net.b = arrays[:3], arrays[3:]
        return net

    def save(self, path):
        np.savez(path, *(self.W + self.b))

    def forward(self, X):
        hs = [X]
        for i, (W, b) in enumerate(zip(self.W, self.b)):
            z = hs[-1] @ W + b
            hs.append(np.maximum(z, 0) if i < len(self.W) - 1 else z[:, 0])
        return hs

    def predict(self, X, batch=65536):
        return np.concatenate([1 / (1 + np.exp(-self.forward(X[i:i + batch])[-1])) for i in range(0, len(X), batch)])

    def step(self, X, y, lr):
        hs = self.forward(X)
        p = 1 / (1 + np.exp(-hs[-1]))
        g = ((p - y) / len(y))[:, None].astype(np.float32)   # d cross-entropy / d logit
        grads_W, grads_b = [], []
        for i in reversed(range(len(self.W))):
            grads_W.append(hs[i].T @ g)
            grads_b.append(g.sum(0))
            if i > 0:
                g = (g @ self.W[i].T) * (hs[i] > 0)
        grads = grads_W[::-1] + grads_b[::-1]
        self.t += 1
        b1, b2 = 0.9, 0.999
        for j, (param, grad) in enumerate(zip(self.W + self.b, grads)):
            self.m[j] = b1 * self.m[j] + (1 - b1) * grad
            self.v[j] = b2 * self.v[j] + (1 - b2) * grad * grad
            param -= lr * (self.m[j] / (1 - b1 ** self.t)) / (np.sqrt(self.v[j] / (1 - b2 ** self.t)) + 1e-8)
