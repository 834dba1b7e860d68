// ChaCha20 keystream keyed by RAND_bytes; see secure_random.h.
#include "common/crypto/secure_random.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"
#include "common/crypto/sha256.h"

namespace ldp {
namespace {

std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "no OpenSSL error recorded";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

std::atomic<uint64_t> fork_generation{0};

void OnForkInChild() {
  fork_generation.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

struct SecureRandom::CipherState {
  struct Free {
    void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
  };
  std::unique_ptr<EVP_CIPHER_CTX, Free> ctx;
};

absl::StatusOr<std::unique_ptr<SecureRandom>> SecureRandom::Create() {
  static const bool registered = [] {
    return pthread_atfork(nullptr, nullptr, &OnForkInChild) == 0;
  }();
  if (!registered) {
    return absl::InternalError("cannot register the fork handler");
  }
  return Keyed(/*simulated=*/false, 0);
}

absl::StatusOr<std::unique_ptr<SecureRandom>> SecureRandom::CreateForSimulation(
    uint64_t seed) {
  return Keyed(/*simulated=*/true, seed);
}

absl::StatusOr<std::unique_ptr<SecureRandom>> SecureRandom::Keyed(
    bool simulated, uint64_t seed) {
  std::unique_ptr<SecureRandom> random(new SecureRandom());
  random->simulated_ = simulated;
  random->seed_ = seed;
  random->cipher_ = std::make_unique<CipherState>();
  random->cipher_->ctx.reset(EVP_CIPHER_CTX_new());
  if (random->cipher_->ctx == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot allocate a cipher context: ", OpenSslError()));
  }
  absl::Status keyed = random->Rekey();
  if (!keyed.ok()) return keyed;
  return random;
}

SecureRandom::~SecureRandom() {
  OPENSSL_cleanse(buffer_.data(), sizeof(buffer_));
}

uint64_t SecureRandom::CurrentForkGeneration() {
  return fork_generation.load(std::memory_order_relaxed);
}

absl::Status SecureRandom::Rekey() {
  // 32-byte key and 16-byte IV (counter + nonce), both fresh from the DRBG.
  unsigned char key_iv[48];
  if (simulated_) {
    // Key and IV: SHA-256 of (label, seed, key number), twice.
    for (int half = 0; half < 2; ++half) {
      const std::string input = absl::StrCat("ldp simulation coins/", seed_,
                                             "/", keys_derived_, "/", half);
      ASSIGN_OR_RETURN(const Sha256Digest digest, Sha256Of(input));
      std::memcpy(key_iv + 32 * half, digest.data(), half == 0 ? 32 : 16);
    }
    ++keys_derived_;
  } else {
    RETURN_IF_ERROR(FillRandomBytes(key_iv, sizeof(key_iv)));
  }
  const int ok = EVP_EncryptInit_ex(cipher_->ctx.get(), EVP_chacha20(), nullptr,
                                    key_iv, key_iv + 32);
  OPENSSL_cleanse(key_iv, sizeof(key_iv));
  if (ok != 1) {
    return absl::InternalError(
        absl::StrCat("cannot key ChaCha20: ", OpenSslError()));
  }
  fork_generation_ = CurrentForkGeneration();
  refills_since_key_ = 0;
  position_ = kWords;
  return absl::OkStatus();
}

void SecureRandom::Refill() {
  if (fork_generation_ != CurrentForkGeneration() ||
      refills_since_key_ >= kRefillsPerKey) {
    absl::Status keyed = Rekey();
    if (!keyed.ok()) {
      // Fail closed: no report may be drawn from a weaker source.
      std::fprintf(stderr, "SecureRandom: %s\n", keyed.ToString().c_str());
      std::abort();
    }
  }
  // Encrypting zeros yields the raw keystream.
  static const unsigned char kZeros[kWords * sizeof(uint64_t)] = {};
  int written = 0;
  if (EVP_EncryptUpdate(cipher_->ctx.get(),
                        reinterpret_cast<unsigned char*>(buffer_.data()),
                        &written, kZeros, sizeof(kZeros)) != 1 ||
      written != static_cast<int>(sizeof(kZeros))) {
    std::fprintf(stderr, "SecureRandom: ChaCha20 failed: %s\n",
                 OpenSslError().c_str());
    std::abort();
  }
  ++refills_since_key_;
  position_ = 0;
}

}  // namespace ldp
