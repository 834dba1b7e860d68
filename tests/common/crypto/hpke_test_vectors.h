// RFC 9180, Appendix A.2.1: the test vector of DHKEM(X25519, HKDF-SHA256),
// HKDF-SHA256, ChaCha20Poly1305 in base mode (mode 0, kem_id 32, kdf_id 1,
// aead_id 3). Values as hex, copied from the appendix as published in the
// CFRG's draft repository (github.com/cfrg/draft-irtf-cfrg-hpke,
// draft-irtf-cfrg-hpke.md, section "DHKEM(X25519, HKDF-SHA256),
// HKDF-SHA256, ChaCha20Poly1305", "Base Setup Information" and
// "Encryptions"), which RFC 9180 reproduces unchanged.
#ifndef LDP_TESTS_COMMON_CRYPTO_HPKE_TEST_VECTORS_H_
#define LDP_TESTS_COMMON_CRYPTO_HPKE_TEST_VECTORS_H_

#include <cstdint>

namespace ldp::hpke_vectors {

inline constexpr char kInfo[] = "4f6465206f6e2061204772656369616e2055726e";
inline constexpr char kIkmE[] =
    "909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b";
inline constexpr char kPkEm[] =
    "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a";
inline constexpr char kSkEm[] =
    "f4ec9b33b792c372c1d2c2063507b684ef925b8c75a42dbcbf57d63ccd381600";
inline constexpr char kIkmR[] =
    "1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df";
inline constexpr char kPkRm[] =
    "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a";
inline constexpr char kSkRm[] =
    "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb";
inline constexpr char kEnc[] =
    "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a";
inline constexpr char kSharedSecret[] =
    "0bbe78490412b4bbea4812666f7916932b828bba79942424abb65244930d69a7";
inline constexpr char kKey[] =
    "ad2744de8e17f4ebba575b3f5f5a8fa1f69c2a07f6e7500bc60ca6e3e3ec1c91";
inline constexpr char kBaseNonce[] = "5c4d98150661b848853b547f";
inline constexpr char kExporterSecret[] =
    "a3b010d4994890e2c6968a36f64470d3c824c8f5029942feb11e7a74b2921922";

// Every encryption has this plaintext ("Beauty is truth, truth beauty").
inline constexpr char kPlaintext[] =
    "4265617574792069732074727574682c20747275746820626561757479";

struct Encryption {
  uint64_t sequence_number;
  const char* aad;  // "Count-<sequence number>".
  const char* nonce;
  const char* ciphertext;
};

inline constexpr Encryption kEncryptions[] = {
    {0, "436f756e742d30", "5c4d98150661b848853b547f",
     "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db"
     "21993c62ce81883d2dd1b51a28"},
    {1, "436f756e742d31", "5c4d98150661b848853b547e",
     "6b53c051e4199c518de79594e1c4ab18b96f081549d45ce015be002090bb119e"
     "85285337cc95ba5f59992dc98c"},
    {2, "436f756e742d32", "5c4d98150661b848853b547d",
     "71146bd6795ccc9c49ce25dda112a48f202ad220559502cef1f34271e0cb4b02"
     "b4f10ecac6f48c32f878fae86b"},
    {4, "436f756e742d34", "5c4d98150661b848853b547b",
     "63357a2aa291f5a4e5f27db6baa2af8cf77427c7c1a909e0b37214dd47db122b"
     "b153495ff0b02e9e54a50dbe16"},
    {255, "436f756e742d323535", "5c4d98150661b848853b5480",
     "18ab939d63ddec9f6ac2b60d61d36a7375d2070c9b683861110757062c52b888"
     "0a5f6b3936da9cd6c23ef2a95c"},
    {256, "436f756e742d323536", "5c4d98150661b848853b557f",
     "7a4a13e9ef23978e2c520fd4d2e757514ae160cd0cd05e556ef692370ca53076"
     "214c0c40d4c728d6ed9e727a5b"},
};

}  // namespace ldp::hpke_vectors

#endif  // LDP_TESTS_COMMON_CRYPTO_HPKE_TEST_VECTORS_H_
