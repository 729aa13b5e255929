// The constructed representations of IEEE 1516.2-2010: fixed records, fixed and variable
// arrays, variant records and opaque data. Elements added by reference ("Pointer") stay the
// caller's; everything else is an owned clone.
#include <RTI/encoding/HLAfixedArray.h>
#include <RTI/encoding/HLAfixedRecord.h>
#include <RTI/encoding/HLAopaqueData.h>
#include <RTI/encoding/HLAvariableArray.h>
#include <RTI/encoding/HLAvariantRecord.h>

#include <algorithm>
#include <cstring>

#include "Padding.h"

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

namespace {

using trellis_encoding::getUnsigned;
using trellis_encoding::need;
using trellis_encoding::pad;
using trellis_encoding::padded;
using trellis_encoding::putUnsigned;

DataElement* copyOf(DataElement const& element) { return element.clone().release(); }

void release(std::vector<DataElement*>& elements, std::vector<bool>& owned) {
  for (size_t i = 0; i < elements.size(); ++i)
    if (owned[i]) delete elements[i];
  elements.clear();
  owned.clear();
}

void replace(std::vector<DataElement*>& elements, std::vector<bool>& owned, size_t index, DataElement* element,
             bool own) {
  if (owned[index]) delete elements[index];
  elements[index] = element;
  owned[index] = own;
}

void checkIndex(size_t index, size_t size, wchar_t const* what) {
  if (index >= size) throw EncoderException(std::wstring(what) + L": index out of range");
}

void checkType(DataElement const& expected, DataElement const& given, wchar_t const* what) {
  if (!expected.isSameTypeAs(given)) throw EncoderException(std::wstring(what) + L": element of another type");
}

VariableLengthData toData(std::vector<Octet> const& buffer) {
  return VariableLengthData(buffer.empty() ? 0 : &buffer[0], buffer.size());
}

std::vector<Octet> fromData(VariableLengthData const& data) {
  Octet const* bytes = static_cast<Octet const*>(data.data());
  return std::vector<Octet>(bytes, bytes + data.size());
}

unsigned int maxBoundary(std::vector<DataElement*> const& elements, unsigned int floor) {
  unsigned int boundary = floor;
  for (size_t i = 0; i < elements.size(); ++i) boundary = std::max(boundary, elements[i]->getOctetBoundary());
  return boundary;
}

size_t encodedSize(DataElement const& element) {
  std::vector<Octet> buffer;
  element.encodeInto(buffer);
  return buffer.size();
}

}  // namespace

#define TRELLIS_ENCODE_VIA_BUFFER(Type)                                            \
  VariableLengthData Type::encode() const {                                        \
    std::vector<Octet> buffer;                                                     \
    encodeInto(buffer);                                                            \
    return toData(buffer);                                                         \
  }                                                                                \
  void Type::encode(VariableLengthData& inData) const { inData = encode(); }       \
  void Type::decode(VariableLengthData const& inData) {                            \
    std::vector<Octet> const buffer = fromData(inData);                            \
    trellis_encoding::allUsed(decodeFrom(buffer, 0), buffer.size(), L## #Type);    \
  }                                                                                \
  size_t Type::getEncodedLength() const { return encodedSize(*this); }             \
  Integer64 Type::hash() const { return DataElement::hash(); }                     \
  RTI_UNIQUE_PTR<DataElement> Type::clone() const { return RTI_UNIQUE_PTR<DataElement>(new Type(*this)); }

// ---- HLAfixedRecord ----

HLAfixedRecord::HLAfixedRecord() {}
HLAfixedRecord::HLAfixedRecord(HLAfixedRecord const& rhs) : DataElement() {
  for (size_t i = 0; i < rhs._elements.size(); ++i) appendElement(*rhs._elements[i]);
}
HLAfixedRecord::~HLAfixedRecord() { release(_elements, _owned); }
TRELLIS_ENCODE_VIA_BUFFER(HLAfixedRecord)

void HLAfixedRecord::encodeInto(std::vector<Octet>& buffer) const {
  pad(buffer, getOctetBoundary());
  for (size_t i = 0; i < _elements.size(); ++i) _elements[i]->encodeInto(buffer);
}

size_t HLAfixedRecord::decodeFrom(std::vector<Octet> const& buffer, size_t index) {
  index = padded(index, getOctetBoundary());
  for (size_t i = 0; i < _elements.size(); ++i) index = _elements[i]->decodeFrom(buffer, index);
  return index;
}

unsigned int HLAfixedRecord::getOctetBoundary() const { return maxBoundary(_elements, 1); }

bool HLAfixedRecord::isSameTypeAs(DataElement const& inData) const {
  HLAfixedRecord const* other = dynamic_cast<HLAfixedRecord const*>(&inData);
  if (other == 0 || other->_elements.size() != _elements.size()) return false;
  for (size_t i = 0; i < _elements.size(); ++i)
    if (!_elements[i]->isSameTypeAs(*other->_elements[i])) return false;
  return true;
}

void HLAfixedRecord::appendElement(DataElement const& dataElement) {
  _elements.push_back(copyOf(dataElement));
  _owned.push_back(true);
}

void HLAfixedRecord::appendElementPointer(DataElement* dataElement) {
  if (dataElement == 0) throw EncoderException(L"HLAfixedRecord::appendElementPointer: null pointer");
  _elements.push_back(dataElement);
  _owned.push_back(false);
}

void HLAfixedRecord::set(size_t index, DataElement const& dataElement) {
  checkIndex(index, _elements.size(), L"HLAfixedRecord::set");
  checkType(*_elements[index], dataElement, L"HLAfixedRecord::set");
  replace(_elements, _owned, index, copyOf(dataElement), true);
}

void HLAfixedRecord::setElementPointer(size_t index, DataElement* dataElement) {
  checkIndex(index, _elements.size(), L"HLAfixedRecord::setElementPointer");
  if (dataElement == 0) throw EncoderException(L"HLAfixedRecord::setElementPointer: null pointer");
  checkType(*_elements[index], *dataElement, L"HLAfixedRecord::setElementPointer");
  replace(_elements, _owned, index, dataElement, false);
}

DataElement const& HLAfixedRecord::get(size_t index) const {
  checkIndex(index, _elements.size(), L"HLAfixedRecord::get");
  return *_elements[index];
}

size_t HLAfixedRecord::size() const { return _elements.size(); }

bool HLAfixedRecord::hasElementSameTypeAs(size_t index, DataElement const& inData) const {
  return index < _elements.size() && _elements[index]->isSameTypeAs(inData);
}

DataElement const& HLAfixedRecord::operator[](size_t index) const { return get(index); }

// ---- HLAfixedArray ----

HLAfixedArray::HLAfixedArray(DataElement const& protoType, size_t length) : _prototype(copyOf(protoType)) {
  for (size_t i = 0; i < length; ++i) {
    _elements.push_back(copyOf(protoType));
    _owned.push_back(true);
  }
}

HLAfixedArray::HLAfixedArray(HLAfixedArray const& rhs) : DataElement(), _prototype(copyOf(*rhs._prototype)) {
  for (size_t i = 0; i < rhs._elements.size(); ++i) {
    _elements.push_back(copyOf(*rhs._elements[i]));
    _owned.push_back(true);
  }
}

HLAfixedArray::~HLAfixedArray() {
  release(_elements, _owned);
  delete _prototype;
}
TRELLIS_ENCODE_VIA_BUFFER(HLAfixedArray)

void HLAfixedArray::encodeInto(std::vector<Octet>& buffer) const {
  pad(buffer, getOctetBoundary());
  for (size_t i = 0; i < _elements.size(); ++i) _elements[i]->encodeInto(buffer);
}

size_t HLAfixedArray::decodeFrom(std::vector<Octet> const& buffer, size_t index) {
  index = padded(index, getOctetBoundary());
  for (size_t i = 0; i < _elements.size(); ++i) index = _elements[i]->decodeFrom(buffer, index);
  return index;
}

unsigned int HLAfixedArray::getOctetBoundary() const { return _prototype->getOctetBoundary(); }

bool HLAfixedArray::isSameTypeAs(DataElement const& inData) const {
  HLAfixedArray const* other = dynamic_cast<HLAfixedArray const*>(&inData);
  return other != 0 && other->_elements.size() == _elements.size() && _prototype->isSameTypeAs(*other->_prototype);
}

bool HLAfixedArray::hasPrototypeSameTypeAs(DataElement const& dataElement) const {
  return _prototype->isSameTypeAs(dataElement);
}

size_t HLAfixedArray::size() const { return _elements.size(); }

void HLAfixedArray::set(size_t index, DataElement const& dataElement) {
  checkIndex(index, _elements.size(), L"HLAfixedArray::set");
  checkType(*_prototype, dataElement, L"HLAfixedArray::set");
  replace(_elements, _owned, index, copyOf(dataElement), true);
}

void HLAfixedArray::setElementPointer(size_t index, DataElement* dataElement) {
  checkIndex(index, _elements.size(), L"HLAfixedArray::setElementPointer");
  if (dataElement == 0) throw EncoderException(L"HLAfixedArray::setElementPointer: null pointer");
  checkType(*_prototype, *dataElement, L"HLAfixedArray::setElementPointer");
  replace(_elements, _owned, index, dataElement, false);
}

DataElement const& HLAfixedArray::get(size_t index) const {
  checkIndex(index, _elements.size(), L"HLAfixedArray::get");
  return *_elements[index];
}

DataElement const& HLAfixedArray::operator[](size_t index) const { return get(index); }

// ---- HLAvariableArray ----

HLAvariableArray::HLAvariableArray(DataElement const& protoType) : _prototype(copyOf(protoType)) {}

HLAvariableArray::HLAvariableArray(HLAvariableArray const& rhs) : DataElement(), _prototype(copyOf(*rhs._prototype)) {
  for (size_t i = 0; i < rhs._elements.size(); ++i) addElement(*rhs._elements[i]);
}

HLAvariableArray::~HLAvariableArray() {
  clear();
  delete _prototype;
}
TRELLIS_ENCODE_VIA_BUFFER(HLAvariableArray)

void HLAvariableArray::clear() { release(_elements, _owned); }

void HLAvariableArray::encodeInto(std::vector<Octet>& buffer) const {
  pad(buffer, getOctetBoundary());
  putUnsigned(buffer, _elements.size(), 4, true);
  for (size_t i = 0; i < _elements.size(); ++i) _elements[i]->encodeInto(buffer);
}

size_t HLAvariableArray::decodeFrom(std::vector<Octet> const& buffer, size_t index) {
  index = padded(index, getOctetBoundary());
  need(buffer, index, 4, L"HLAvariableArray count");
  size_t const count = static_cast<size_t>(getUnsigned(buffer, index, 4, true));
  index += 4;
  // Every element takes at least one byte: a count past the data is refused before anything
  // is allocated for it.
  if (count > buffer.size() - index && _prototype->getEncodedLength() > 0)
    need(buffer, index, count, L"HLAvariableArray elements");
  clear();
  for (size_t i = 0; i < count; ++i) {
    DataElement* element = copyOf(*_prototype);
    _elements.push_back(element);
    _owned.push_back(true);
    index = element->decodeFrom(buffer, index);
  }
  return index;
}

unsigned int HLAvariableArray::getOctetBoundary() const { return std::max(4u, _prototype->getOctetBoundary()); }

bool HLAvariableArray::isSameTypeAs(DataElement const& inData) const {
  HLAvariableArray const* other = dynamic_cast<HLAvariableArray const*>(&inData);
  return other != 0 && _prototype->isSameTypeAs(*other->_prototype);
}

bool HLAvariableArray::hasPrototypeSameTypeAs(DataElement const& dataElement) const {
  return _prototype->isSameTypeAs(dataElement);
}

size_t HLAvariableArray::size() const { return _elements.size(); }

void HLAvariableArray::addElement(DataElement const& dataElement) {
  checkType(*_prototype, dataElement, L"HLAvariableArray::addElement");
  _elements.push_back(copyOf(dataElement));
  _owned.push_back(true);
}

void HLAvariableArray::addElementPointer(DataElement* dataElement) {
  if (dataElement == 0) throw EncoderException(L"HLAvariableArray::addElementPointer: null pointer");
  checkType(*_prototype, *dataElement, L"HLAvariableArray::addElementPointer");
  _elements.push_back(dataElement);
  _owned.push_back(false);
}

void HLAvariableArray::set(size_t index, DataElement const& dataElement) {
  checkIndex(index, _elements.size(), L"HLAvariableArray::set");
  checkType(*_prototype, dataElement, L"HLAvariableArray::set");
  replace(_elements, _owned, index, copyOf(dataElement), true);
}

void HLAvariableArray::setElementPointer(size_t index, DataElement* dataElement) {
  checkIndex(index, _elements.size(), L"HLAvariableArray::setElementPointer");
  if (dataElement == 0) throw EncoderException(L"HLAvariableArray::setElementPointer: null pointer");
  checkType(*_prototype, *dataElement, L"HLAvariableArray::setElementPointer");
  replace(_elements, _owned, index, dataElement, false);
}

DataElement const& HLAvariableArray::get(size_t index) const {
  checkIndex(index, _elements.size(), L"HLAvariableArray::get");
  return *_elements[index];
}

DataElement const& HLAvariableArray::operator[](size_t index) const { return get(index); }

// ---- HLAvariantRecord ----

HLAvariantRecord::HLAvariantRecord(DataElement const& discriminantPrototype)
    : _discriminant(copyOf(discriminantPrototype)) {}

HLAvariantRecord::HLAvariantRecord(HLAvariantRecord const& rhs) : DataElement(), _discriminant(copyOf(*rhs._discriminant)) {
  for (size_t i = 0; i < rhs._keys.size(); ++i) addVariant(*rhs._keys[i], *rhs._values[i]);
}

HLAvariantRecord::~HLAvariantRecord() {
  for (size_t i = 0; i < _keys.size(); ++i) delete _keys[i];
  release(_values, _owned);
  delete _discriminant;
}
TRELLIS_ENCODE_VIA_BUFFER(HLAvariantRecord)

size_t HLAvariantRecord::find(DataElement const& discriminant) const {
  VariableLengthData const wanted = discriminant.encode();
  for (size_t i = 0; i < _keys.size(); ++i) {
    VariableLengthData const key = _keys[i]->encode();
    if (key.size() == wanted.size() && std::memcmp(key.data(), wanted.data(), key.size()) == 0) return i;
  }
  throw EncoderException(L"HLAvariantRecord: no alternative for this discriminant");
}

void HLAvariantRecord::encodeInto(std::vector<Octet>& buffer) const {
  pad(buffer, getOctetBoundary());
  _discriminant->encodeInto(buffer);
  _values[find(*_discriminant)]->encodeInto(buffer);
}

size_t HLAvariantRecord::decodeFrom(std::vector<Octet> const& buffer, size_t index) {
  index = padded(index, getOctetBoundary());
  index = _discriminant->decodeFrom(buffer, index);
  return _values[find(*_discriminant)]->decodeFrom(buffer, index);
}

unsigned int HLAvariantRecord::getOctetBoundary() const {
  return std::max(_discriminant->getOctetBoundary(), maxBoundary(_values, 1));
}

bool HLAvariantRecord::isSameTypeAs(DataElement const& inData) const {
  HLAvariantRecord const* other = dynamic_cast<HLAvariantRecord const*>(&inData);
  return other != 0 && _discriminant->isSameTypeAs(*other->_discriminant) && other->_keys.size() == _keys.size();
}

bool HLAvariantRecord::isSameTypeAs(DataElement const& discriminant, DataElement const& inData) const {
  return _values[find(discriminant)]->isSameTypeAs(inData);
}

bool HLAvariantRecord::hasMatchingDiscriminantTypeAs(DataElement const& dataElement) const {
  return _discriminant->isSameTypeAs(dataElement);
}

void HLAvariantRecord::addVariant(DataElement const& discriminant, DataElement const& valuePrototype) {
  checkType(*_discriminant, discriminant, L"HLAvariantRecord::addVariant");
  _keys.push_back(copyOf(discriminant));
  _values.push_back(copyOf(valuePrototype));
  _owned.push_back(true);
}

void HLAvariantRecord::addVariantPointer(DataElement const& discriminant, DataElement* valuePtr) {
  checkType(*_discriminant, discriminant, L"HLAvariantRecord::addVariantPointer");
  if (valuePtr == 0) throw EncoderException(L"HLAvariantRecord::addVariantPointer: null pointer");
  _keys.push_back(copyOf(discriminant));
  _values.push_back(valuePtr);
  _owned.push_back(false);
}

void HLAvariantRecord::setDiscriminant(DataElement const& discriminant) {
  checkType(*_discriminant, discriminant, L"HLAvariantRecord::setDiscriminant");
  find(discriminant);
  delete _discriminant;
  _discriminant = copyOf(discriminant);
}

void HLAvariantRecord::setVariant(DataElement const& discriminant, DataElement const& value) {
  size_t const at = find(discriminant);
  checkType(*_values[at], value, L"HLAvariantRecord::setVariant");
  replace(_values, _owned, at, copyOf(value), true);
  setDiscriminant(discriminant);
}

void HLAvariantRecord::setVariantPointer(DataElement const& discriminant, DataElement* valuePtr) {
  size_t const at = find(discriminant);
  if (valuePtr == 0) throw EncoderException(L"HLAvariantRecord::setVariantPointer: null pointer");
  checkType(*_values[at], *valuePtr, L"HLAvariantRecord::setVariantPointer");
  replace(_values, _owned, at, valuePtr, false);
  setDiscriminant(discriminant);
}

DataElement const& HLAvariantRecord::getDiscriminant() const { return *_discriminant; }
DataElement const& HLAvariantRecord::getVariant() const { return *_values[find(*_discriminant)]; }

// ---- HLAopaqueData ----

HLAopaqueData::HLAopaqueData() : _reference(0), _bufferSize(0), _dataSize(0) {}
HLAopaqueData::HLAopaqueData(Octet const* inData, size_t dataSize) : _reference(0), _bufferSize(0), _dataSize(0) {
  set(inData, dataSize);
}
HLAopaqueData::HLAopaqueData(Octet** inData, size_t bufferSize, size_t dataSize)
    : _reference(0), _bufferSize(0), _dataSize(0) {
  setDataPointer(inData, bufferSize, dataSize);
}
HLAopaqueData::HLAopaqueData(HLAopaqueData const& rhs)
    : DataElement(), _data(rhs.get(), rhs.get() + rhs.dataLength()), _reference(0), _bufferSize(0), _dataSize(0) {}
HLAopaqueData::~HLAopaqueData() {}
TRELLIS_ENCODE_VIA_BUFFER(HLAopaqueData)

void HLAopaqueData::encodeInto(std::vector<Octet>& buffer) const {
  pad(buffer, getOctetBoundary());
  putUnsigned(buffer, dataLength(), 4, true);
  buffer.insert(buffer.end(), get(), get() + dataLength());
}

size_t HLAopaqueData::decodeFrom(std::vector<Octet> const& buffer, size_t index) {
  index = padded(index, getOctetBoundary());
  need(buffer, index, 4, L"HLAopaqueData count");
  size_t const count = static_cast<size_t>(getUnsigned(buffer, index, 4, true));
  need(buffer, index + 4, count, L"HLAopaqueData bytes");
  if (_reference != 0 && count <= _bufferSize) {
    if (count > 0) std::memcpy(*_reference, &buffer[index + 4], count);
    _dataSize = count;
  } else {
    _reference = 0;
    _data.assign(buffer.begin() + index + 4, buffer.begin() + index + 4 + count);
  }
  return index + 4 + count;
}

unsigned int HLAopaqueData::getOctetBoundary() const { return 4; }
bool HLAopaqueData::isSameTypeAs(DataElement const& inData) const {
  return dynamic_cast<HLAopaqueData const*>(&inData) != 0;
}
size_t HLAopaqueData::bufferLength() const { return _reference != 0 ? _bufferSize : _data.size(); }
size_t HLAopaqueData::dataLength() const { return _reference != 0 ? _dataSize : _data.size(); }

void HLAopaqueData::setDataPointer(Octet** inData, size_t bufferSize, size_t dataSize) {
  if (inData == 0 || *inData == 0 || dataSize > bufferSize)
    throw EncoderException(L"HLAopaqueData::setDataPointer: null buffer or data longer than the buffer");
  _reference = inData;
  _bufferSize = bufferSize;
  _dataSize = dataSize;
}

void HLAopaqueData::set(Octet const* inData, size_t dataSize) {
  _reference = 0;
  _data.assign(inData, inData + dataSize);
}

Octet const* HLAopaqueData::get() const {
  if (_reference != 0) return *_reference;
  return _data.empty() ? 0 : &_data[0];
}

HLAopaqueData::operator Octet const*() const { return get(); }

#undef TRELLIS_ENCODE_VIA_BUFFER

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e
