// ember::optim: optimizers, their gradients by param name, gradient accumulation and clipping,
// loss scaling for f16 mixed precision, and learning-rate schedulers.
#pragma once

#include "ember/optim/accumulator.h"
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/clip.h"
#include "ember/optim/grad_scaler.h"
#include "ember/optim/gradients_params.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/scheduler.h"
#include "ember/optim/sgd.h"
#include "ember/optim/state.h"
