def ramp_total(x):
    return float(ramp(x.size).sum())
