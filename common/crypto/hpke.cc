// Single-shot HPKE base mode: Encap or Decap, the key schedule, one AEAD
// call at sequence number 0; see the header. The shared secret and the
// context's keys are zeroed when they go out of scope (hpke_kdf.h).
#include "common/crypto/hpke.h"

#include <utility>

#include "common/base/status_macros.h"
#include "common/crypto/hpke_key_schedule.h"

namespace ldp {

absl::StatusOr<HpkeSealed> SealBase(std::string_view recipient_public_key,
                                    std::string_view info, std::string_view aad,
                                    std::string_view plaintext) {
  ASSIGN_OR_RETURN(const HpkeKeyPair ephemeral, GenerateHpkeKeyPair());
  return SealBaseWithEphemeralForTesting(recipient_public_key, ephemeral, info,
                                         aad, plaintext);
}

absl::StatusOr<HpkeSealed> SealBaseWithEphemeralForTesting(
    std::string_view recipient_public_key, const HpkeKeyPair& ephemeral,
    std::string_view info, std::string_view aad, std::string_view plaintext) {
  ASSIGN_OR_RETURN(const hpke_internal::Encapsulation encapsulation,
                   hpke_internal::Encap(recipient_public_key, ephemeral));
  ASSIGN_OR_RETURN(hpke_internal::HpkeContext context,
                   hpke_internal::HpkeContext::FromSharedSecret(
                       encapsulation.shared_secret, info));
  HpkeSealed sealed;
  sealed.enc = std::string(HpkeKeyBytes(encapsulation.enc));
  ASSIGN_OR_RETURN(sealed.ciphertext, context.Seal(aad, plaintext));
  return sealed;
}

absl::StatusOr<std::string> OpenBase(const HpkeKeyPair& recipient,
                                     std::string_view enc,
                                     std::string_view info,
                                     std::string_view aad,
                                     std::string_view ciphertext) {
  ASSIGN_OR_RETURN(const hpke_internal::SharedSecret shared_secret,
                   hpke_internal::Decap(enc, recipient));
  ASSIGN_OR_RETURN(
      hpke_internal::HpkeContext context,
      hpke_internal::HpkeContext::FromSharedSecret(shared_secret, info));
  return context.Open(aad, ciphertext);
}

}  // namespace ldp
